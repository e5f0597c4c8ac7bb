/**
 * One configuration loader per function kind, each built from one schema per section with
 * `loadSections`: problems in two different sections come back in one `ConfigError` that names
 * every field and what was expected, and never a value. (Infra: test/infra/config.test.ts.)
 */

import { describe, expect, it } from 'vitest';
import { isdocSettings } from '#functions/core/actions/archive-isdoc/settings.js';
import { loadActionFunctionConfig } from '#functions/handlers/action-config.js';
import { loadConnectionPollerConfig } from '#functions/handlers/connections-config.js';
import { checkRuntimeSettings } from '#functions/local/runtime-settings.js';
import { ConfigError, loadSections } from '#functions/shared/config.js';

/** The `ConfigError` `load` throws (fails the test when it throws none, or another error). */
function configErrorOf(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const fields = (error: ConfigError) => error.issues.map((i) => i.field);

describe('loadSections', () => {
  it('runs every section after a failing one and throws one error with all their issues', () => {
    const ran: string[] = [];
    const error = configErrorOf(() =>
      loadSections({
        a: () => {
          ran.push('a');
          throw new ConfigError([{ field: 'A', expected: 'expected an a' }]);
        },
        b: () => ran.push('b'),
        c: () => {
          ran.push('c');
          throw new ConfigError([
            { field: 'C', expected: 'expected a c' },
            { field: 'A', expected: 'expected an a' },
          ]);
        },
      }),
    );
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(error.problems).toEqual(['A: expected an a', 'C: expected a c']);
    expect(error.message).toBe('invalid configuration: A: expected an a; C: expected a c');
  });

  it('returns each section’s result, and lets an error that is not about configuration through', () => {
    expect(loadSections({ a: () => 1, b: () => 'two' })).toEqual({ a: 1, b: 'two' });
    const bug = new TypeError('a bug, not a setting');
    expect(() =>
      loadSections({
        a: () => {
          throw bug;
        },
      }),
    ).toThrow(bug);
  });
});

describe('one error per function kind, from two sections', () => {
  it('poller: its poll options and LOG_LEVEL', () => {
    const error = configErrorOf(() =>
      loadConnectionPollerConfig({
        EVENT_BUS_NAME: 'bus',
        POLLER_CHECKPOINTS_TABLE: 'checkpoints',
        CLAIM_CHECK_BUCKET: 'claims',
        ACCOUNTING_CREDENTIALS_SECRET: 'arn:secret',
        POLLER_LOOKBACK_SECONDS: '-1',
        LOG_LEVEL: 'loud',
      }),
    );
    expect(error.problems).toEqual([
      'POLLER_LOOKBACK_SECONDS: expected a number of seconds ≥ 0',
      'LOG_LEVEL: expected one of debug, info, warn, error, silent',
    ]);
  });

  it('the poller of shards: its sections and LOG_LEVEL', () => {
    expect(
      fields(
        configErrorOf(() =>
          loadConnectionPollerConfig({
            EVENT_BUS_NAME: 'bus',
            POLLER_CHECKPOINTS_TABLE: 'c',
            CLAIM_CHECK_BUCKET: 'b',
            POLLER_PARALLEL_CONNECTIONS: '0',
            POLLER_CONNECTION_BUDGET_SECONDS: 'soon',
          }),
        ),
      ),
    ).toEqual(['POLLER_PARALLEL_CONNECTIONS', 'POLLER_CONNECTION_BUDGET_SECONDS']);
    expect(
      fields(
        configErrorOf(() => loadConnectionPollerConfig({ POLLER_CONNECTIONS_TABLE: 't', LOG_LEVEL: 'loud' })),
      ),
    ).toEqual(['EVENT_BUS_NAME', 'POLLER_CHECKPOINTS_TABLE', 'CLAIM_CHECK_BUCKET', 'LOG_LEVEL']);
  });

  it('the poller of shards keeps at least as many clients as connections it polls at once', () => {
    const env = { EVENT_BUS_NAME: 'bus', POLLER_CHECKPOINTS_TABLE: 'c', CLAIM_CHECK_BUCKET: 'b' };
    // A full pool closes its oldest client: one still polling if the pool were smaller.
    expect(loadConnectionPollerConfig(env).maxClients).toBe(100);
    expect(loadConnectionPollerConfig({ ...env, POLLER_PARALLEL_CONNECTIONS: '10' }).maxClients).toBe(64);
    expect(loadConnectionPollerConfig({ ...env, POLLER_MAX_CLIENTS: '150' }).maxClients).toBe(150);
    const error = configErrorOf(() => loadConnectionPollerConfig({ ...env, POLLER_MAX_CLIENTS: '64' }));
    expect(error.problems).toEqual([
      'POLLER_MAX_CLIENTS: expected at least POLLER_PARALLEL_CONNECTIONS (the connections polled at once)',
    ]);
  });

  it('action: the action settings and the accounting client, without any secret in the error', () => {
    const apiKey = 'api-key-that-must-not-leak-4711';
    const clientSecret = 'client-secret-that-must-not-leak-0815';
    const error = configErrorOf(() =>
      loadActionFunctionConfig(
        {
          EVENT_BUS_NAME: 'bus',
          ACTIONS_ISDOC_PDF: 'maybe',
          ACCOUNTING_API_KEY: apiKey,
          ACCOUNTING_CLIENT_SECRET: clientSecret,
        },
        [],
        [isdocSettings],
      ),
    );
    expect(fields(error)).toContain('ACTIONS_ISDOC_PDF');
    expect(fields(error).some((f) => f.startsWith('ACCOUNTING_'))).toBe(true);
    for (const text of [error.message, JSON.stringify(error.issues), String(error.cause)]) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(clientSecret);
    }
  });

  it('local runtime: the poller, the actions and the intake', () => {
    const error = configErrorOf(() =>
      checkRuntimeSettings({
        env: { POLLER_LOOKBACK_SECONDS: '-1', ACTIONS_ISDOC_PDF: 'maybe', INTAKE_MAX_BODY_BYTES: 'lots' },
        sandbox: true,
        actions: true,
        intake: true,
      }),
    );
    expect(fields(error)).toEqual(['POLLER_LOOKBACK_SECONDS', 'ACTIONS_ISDOC_PDF', 'INTAKE_MAX_BODY_BYTES']);
  });
});
