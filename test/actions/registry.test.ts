import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  ActionRegistryError,
  defineEventAction,
  validateRegistry,
} from '#functions/core/actions/action-definition.js';
import { loadActionsConfig } from '#functions/core/actions/actions-config.js';
import { isdocSettings } from '#functions/core/actions/archive-isdoc/settings.js';
import { actionRegistry, findAction } from '#functions/core/actions/registry.js';
import { ACTION_FAILED } from '#functions/core/events/action-events.js';
import { buildRoutes, buildScheduledActions } from '#functions/core/routes.js';
import { loadActionFunctionConfig } from '#functions/handlers/action-config.js';
import { accessOf } from '#infra/constructs/handler-access.js';
import { findHandlerEntry } from '#infra/constructs/handler-entry.js';

const everything = loadActionsConfig({
  ACTIONS_TRANSFER_ISSUED_OFFER_TO_RECEIVED_ORDER: 'true',
  ACTIONS_TRANSFER_ISSUED_ORDER_TO_RECEIVED_INVOICE: 'true',
  ACTIONS_EINVOICE_PARTNERS: '12345678',
  ACTIONS_EMAIL_PARTNERS: '55555555',
});

describe('action registry', () => {
  it('gives every route and schedule a registered handler, publishing only its entry’s outcomes', () => {
    const czEverything = loadActionsConfig({ ACCOUNTING_SERVICE_VARIANT: 'cz' });
    for (const route of [...buildRoutes(everything), ...buildRoutes(czEverything)]) {
      const action = findAction(route.handler);
      expect(action?.kind, route.id).toBe('event');
      for (const type of route.outcomes) expect(action?.outcomes, route.id).toContain(type);
      expect(route.outcomes, route.id).toContain(ACTION_FAILED);
    }
    const [tracker] = buildScheduledActions(everything);
    expect(findAction(tracker!.handler)?.kind).toBe('scheduled');
    const names = actionRegistry.map((a) => a.name);
    expect(names.slice(0, 4)).toEqual([
      'transfer-documents',
      'archive-isdoc',
      'send-invoice',
      'track-einvoices',
    ]);
    // Each has its Lambda entry point.
    for (const name of names) expect(findHandlerEntry(name), name).toBeDefined();
  });

  it('refuses duplicate names, non-kebab names, unknown stores and uncatalogued outcomes at once', () => {
    const entry = (name: string, extra: object = {}) =>
      defineEventAction({
        name,
        module: import.meta.url,
        uses: [],
        events: [],
        outcomes: [ACTION_FAILED],
        deps: () => ({}),
        run: () => async () => ({ status: 'done' }),
        routes: () => [],
        ...extra,
      });
    expect(() => validateRegistry([entry('a'), entry('a')])).toThrow(/a: the name appears twice/);
    let error: unknown;
    try {
      validateRegistry([entry('Bad_Name', { module: '', uses: ['disk'], outcomes: ['Order.Teleported'] })]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ActionRegistryError);
    const problems = (error as ActionRegistryError).problems.join('\n');
    expect(problems).toMatch(/name: expected a kebab-case handler module name/);
    expect(problems).toMatch(/uses\.0/);
    expect(problems).toMatch(/Bad_Name\.module: expected the defining module's import\.meta\.url/);
    expect(problems).toMatch(/Bad_Name\.outcomes: 'Order\.Teleported' is no event an action declares/);
  });

  it('refuses a detail-type two actions declare', () => {
    const owned = { detailType: 'Order.Teleported', description: 'x', schema: z.object({}), example: {} };
    const entry = (name: string) =>
      defineEventAction({
        name,
        module: import.meta.url,
        uses: [],
        events: [owned],
        outcomes: ['Order.Teleported', ACTION_FAILED],
        deps: () => ({}),
        run: () => async () => ({ status: 'done' }),
        routes: () => [],
      });
    expect(() => validateRegistry([entry('a'), entry('b')])).toThrow(
      /b\.events: 'Order\.Teleported' is declared by a too/,
    );
  });

  it('grants each action the service, the bus and exactly the stores it uses', () => {
    expect(accessOf('archive-isdoc').access).toMatchObject({
      accountingApi: true,
      publishEvents: true,
      archiveWrite: true,
      idempotency: false,
      actionState: false,
    });
    expect(accessOf('send-invoice').access).toMatchObject({ idempotency: true, actionState: true });
    expect(accessOf('track-einvoices').access).toMatchObject({ idempotency: false, actionState: true });
    expect(accessOf('poll-connections').access).toMatchObject({ checkpoints: true, idempotency: false });
    expect(accessOf('not-an-action').known).toBe(false);
  });
});

describe('action function config', () => {
  it('names every problem of every section in one error', () => {
    expect(() =>
      loadActionFunctionConfig(
        {
          LOG_LEVEL: 'loud',
          ACTIONS_ISDOC_PDF: 'maybe',
          ACTIONS_DEAD_LETTER_QUEUE_URL: 'ftp://queue',
          ACCOUNTING_MAX_ATTEMPTS: '-2',
          ACCOUNTING_API_KEY: 'k'.repeat(20),
        },
        ['idempotency', 'archive'],
        [isdocSettings],
      ),
    ).toThrow(
      new RegExp(
        [
          'ACTIONS_ISDOC_PDF: expected one of',
          'EVENT_BUS_NAME: required',
          'LOG_LEVEL: expected one of debug, info, warn, error, silent',
          'ACTIONS_DEAD_LETTER_QUEUE_URL: expected the http\\(s\\) URL of an SQS queue',
          'ACCOUNTING_MAX_ATTEMPTS',
          'ACTIONS_IDEMPOTENCY_TABLE: required by this function',
          'ACTIONS_ARCHIVE_BUCKET: required by this function',
        ].join('.*'),
      ),
    );
  });

  it('reads LOG_LEVEL through its schema (warning = warn, default info)', () => {
    const env = { EVENT_BUS_NAME: 'bus', ACCOUNTING_CREDENTIALS_SECRET: 'arn:secret' };
    expect(loadActionFunctionConfig(env, []).logLevel).toBe('info');
    expect(loadActionFunctionConfig({ ...env, LOG_LEVEL: 'WARNING' }, []).logLevel).toBe('warn');
  });
});
