import { describe, expect, it } from 'vitest';
import { defaultPolledCollections } from '#functions/accounting/collections.js';
import { connectionEntrySchema } from '#functions/core/connections/connection-entry.js';
import { buildRoutes } from '#functions/core/routes.js';
import { ConfigError } from '#functions/shared/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { actionsConfigOf } from '#infra/build-app.js';
import { envNameOf, loadInfraConfig } from '#infra/config/load.js';
import { TEST_BASE_URL, testInfraConfig } from './support.js';

/** The settings as given: context, then environment, then defaults. */
const loadAsGiven = (context: Record<string, unknown>, env: Record<string, string> = {}) =>
  loadInfraConfig({ context: (key) => context[key], env });
/** The same, with the tests' base URL where the context names none. */
const load = (context: Record<string, unknown>, env: Record<string, string> = {}) =>
  loadAsGiven({ accountingBaseUrl: TEST_BASE_URL, ...context }, env);

describe('infra config', () => {
  it('defaults: 1-minute rate, every document collection, GOVERNANCE 10 years, retain, unreserved 50 s poller', () => {
    expect(testInfraConfig()).toMatchObject({
      stage: 'prod',
      scheduleRateMinutes: 1,
      collections: [...defaultPolledCollections],
      archiveRetentionMode: 'GOVERNANCE',
      archiveRetentionYears: 10,
      removalPolicy: 'RETAIN',
      lagAlarmSeconds: 900,
      pollerTimeoutSeconds: 50,
      pollerReservedConcurrency: 0,
      actions: {},
    });
  });

  it('Object Lock by stage: GOVERNANCE for prod, OFF elsewhere; an explicit mode wins', () => {
    expect(testInfraConfig({ stage: 'dev' }).archiveRetentionMode).toBe('OFF');
    expect(testInfraConfig({ stage: 'prod' }).archiveRetentionMode).toBe('GOVERNANCE');
    expect(testInfraConfig({ archiveRetentionMode: 'COMPLIANCE' }).archiveRetentionMode).toBe('COMPLIANCE');
    expect(load({ stage: 'dev', archiveRetentionMode: 'governance' }).archiveRetentionMode).toBe(
      'GOVERNANCE',
    );
  });

  it('the poller timeout must be shorter than one tick (rate, or 60 s with the connection registry)', () => {
    expect(load({ scheduleRateMinutes: 5, pollerTimeoutSeconds: 290 }).pollerTimeoutSeconds).toBe(290);
    expect(() => load({ pollerTimeoutSeconds: 60 })).toThrow(
      /pollerTimeoutSeconds .*expected less than one tick \(scheduleRateMinutes 1 = 60 s\)/,
    );
    expect(() => load({ scheduleRateMinutes: 5, pollerTimeoutSeconds: 300 })).toThrow(/pollerTimeoutSeconds/);
    expect(() =>
      load({ connectionRegistry: true, scheduleRateMinutes: 5, pollerTimeoutSeconds: 120 }),
    ).toThrow(/pollerTimeoutSeconds .*shards of the connection registry are ticked every 60 s/);
  });

  it('serviceVariant picks the poll set and the transfer routes, and checks named collections', () => {
    const cz = load({ serviceVariant: 'cz' });
    expect(cz.serviceVariant).toBe('cz');
    expect(cz.collections).toContain('IssuedInvoiceCorrectiveTaxDocuments');
    expect(cz.collections).not.toContain('IssuedCreditNotes');
    expect(actionsConfigOf(cz).variant).toBe('cz');
    expect(buildRoutes(actionsConfigOf(cz)).map((r) => r.id)).toContain('transfer-received-order-to-invoice');
    expect(() => load({ serviceVariant: 'cz', collections: 'IssuedTaxDocuments' })).toThrow(
      /IssuedTaxDocuments not in service variant cz/,
    );
    expect(() => load({ serviceVariant: 'at' })).toThrow(/serviceVariant/);
  });

  it('reads context first, then ACCOUNTING_EVENTS_* variables, coercing strings', () => {
    expect(envNameOf('scheduleRateMinutes')).toBe('ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES');
    const config = load(
      { scheduleRateMinutes: '5', collections: 'IssuedInvoices, ReceivedOrders' },
      {
        ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES: '9',
        ACCOUNTING_EVENTS_STAGE: 'dev',
        ACCOUNTING_EVENTS_ARCHIVE_RETENTION_MODE: 'off',
      },
    );
    expect(config).toMatchObject({
      scheduleRateMinutes: 5,
      stage: 'dev',
      archiveRetentionMode: 'OFF',
      collections: ['IssuedInvoices', 'ReceivedOrders'],
    });
  });

  it('action settings (e-invoicing rules) from a JSON string; infra-owned names are refused', () => {
    expect(load({ actions: `{"${'ACTIONS_EINVOICE_PARTNERS'}":"123,456"}` }).actions).toEqual({
      ACTIONS_EINVOICE_PARTNERS: '123,456',
    });
    expect(() => load({ actions: { [ENV.actionsArchiveBucket]: 'x' } })).toThrow(/infrastructure-owned/);
    // Each route function gets its own DLQ's URL from the stack; one value for all would be wrong.
    expect(() =>
      load({ actions: { [ENV.actionsDeadLetterQueueUrl]: 'https://sqs.eu-central-1.amazonaws.com/1/q' } }),
    ).toThrow(/infrastructure-owned/);
  });

  it('one error names every malformed setting and what was expected', () => {
    let error: unknown;
    try {
      load({
        scheduleRateMinutes: '0',
        collections: 'Nope',
        alarmEmail: 'not-an-email',
        logRetentionDays: 10,
        logLevel: 'trace',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/scheduleRateMinutes .*ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES/);
    expect(problems).toMatch(/collections.*unknown collection 'Nope'/);
    expect(problems).toMatch(/alarmEmail.*e-mail/);
    expect(problems).toMatch(/logRetentionDays.*expected one of/);
    expect(problems).toMatch(/logLevel/);
  });

  it('checks the action and intake settings with their own sections, in the same one error', () => {
    let error: unknown;
    try {
      load({
        scheduleRateMinutes: '0',
        actions: { ACTIONS_ISDOC_PDF: 'maybe' },
        intakeSettings: { INTAKE_MAX_BODY_BYTES: 'lots' },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      expect.stringMatching(
        /^scheduleRateMinutes \(context 'scheduleRateMinutes' or ACCOUNTING_EVENTS_SCHEDULE_RATE_MINUTES\): /,
      ),
      expect.stringMatching(
        /^actions \(context 'actions' or ACCOUNTING_EVENTS_ACTIONS\)\[ACTIONS_ISDOC_PDF\]: expected one of true, false/,
      ),
      expect.stringMatching(
        /^intakeSettings \(context 'intakeSettings' or ACCOUNTING_EVENTS_INTAKE_SETTINGS\)\[INTAKE_MAX_BODY_BYTES\]: /,
      ),
    ]);
  });
});

describe('the service base URL of a single-company deployment (accountingBaseUrl)', () => {
  const SETTING =
    /^accountingBaseUrl \(context 'accountingBaseUrl' or ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL\): /;

  it('sk without it is refused at synth: one problem, naming the setting, its context and its variable', () => {
    for (const [context, env] of [
      [{}, {}],
      [{ serviceVariant: 'sk' }, {}],
      [{}, { ACCOUNTING_EVENTS_SERVICE_VARIANT: 'sk', ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL: '' }],
      [{ accountingAuthUrl: 'https://auth.example.sk' }, {}],
    ] as const) {
      let error: unknown;
      try {
        loadAsGiven(context, env);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify({ context, env })).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([expect.stringMatching(SETTING)]);
      expect((error as ConfigError).problems[0]).toMatch(
        /service base URL .*service variant sk has no preset/,
      );
    }
  });

  it('sk with it is accepted, from context or from the environment', () => {
    expect(loadAsGiven({ accountingBaseUrl: 'https://api.example.sk/' }).accountingBaseUrl).toBe(
      'https://api.example.sk/',
    );
    expect(
      loadAsGiven({}, { ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL: 'https://api.example.sk' }).accountingBaseUrl,
    ).toBe('https://api.example.sk');
    // A malformed one is refused as a URL, not as a missing one.
    expect(() => loadAsGiven({ accountingBaseUrl: 'http://api.example.sk' })).toThrow(
      /accountingBaseUrl.*https/s,
    );
  });

  it('cz without it is accepted: its preset serves the functions', () => {
    const cz = loadAsGiven({ serviceVariant: 'cz' });
    expect(cz.serviceVariant).toBe('cz');
    expect(cz.accountingBaseUrl).toBeUndefined();
  });

  it('with the connection registry it is not needed: each registered connection carries its own baseUrl', () => {
    const registry = loadAsGiven({ connectionRegistry: true });
    expect(registry).toMatchObject({ serviceVariant: 'sk', connectionRegistry: true });
    expect(registry.accountingBaseUrl).toBeUndefined();
    expect(() => loadAsGiven({ connectionRegistry: false })).toThrow(/ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL/);
    // The registry's entries are checked when registered: an sk entry names its own.
    const entry = { name: 'acme', variant: 'sk', credentialsSecret: 'env:ACME_CREDENTIALS' } as const;
    const without = connectionEntrySchema.safeParse(entry);
    expect(without.success).toBe(false);
    expect(without.error?.issues.map((i) => i.path.join('.'))).toEqual(['baseUrl']);
    expect(connectionEntrySchema.safeParse({ ...entry, baseUrl: TEST_BASE_URL }).success).toBe(true);
  });
});
