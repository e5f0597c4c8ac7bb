/**
 * A statement dropped at `bank-statements/<connection>/<file>`: imported for the connection its key
 * names when the registry knows it (the connection's source and home currency), refused with its
 * reasons — publishing nothing — when the key, the connection, the object or the file is wrong,
 * and a failure to read it thrown (the drop is tried again).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEnvConnectionRegistry } from '#functions/adapters/env-connection-registry.js';
import {
  connectionOfStatementKey,
  type DroppedStatementDeps,
  importDroppedStatement,
} from '#functions/core/bank/statement-drop.js';
import { systemClock } from '#functions/shared/clock.js';
import { recordingLogger, recordingPublisher } from '../actions/support.js';

const CAMT = new Uint8Array(readFileSync(new URL('../fixtures/bank/camt053-001-02.xml', import.meta.url)));

function bed(objects: Record<string, Uint8Array>, read?: DroppedStatementDeps['read']) {
  const publisher = recordingPublisher();
  const logger = recordingLogger();
  const registry = createEnvConnectionRegistry({
    ACCOUNTING_CONNECTION: 'acme',
    ACCOUNTING_SERVICE_VARIANT: 'cz',
    EVENT_SOURCE: 'com.example.acme',
  });
  const deps: DroppedStatementDeps = {
    registry,
    read: read ?? (async (key) => objects[key]),
    publisher,
    clock: systemClock,
    logger,
  };
  return { deps, publisher, logger };
}

describe('a dropped bank statement', () => {
  it("names its connection by the key's second segment, and nothing else", () => {
    expect(connectionOfStatementKey('bank-statements/acme/2026-11.xml')).toEqual({ connection: 'acme' });
    expect(connectionOfStatementKey('bank-statements/acme/nov/2026-11.xml')).toEqual({ connection: 'acme' });
    for (const key of [
      'bank-statements/acme/',
      'bank-statements/acme',
      'isdoc/acme/x.xml',
      'bank-statements/Acme/x.xml',
      'bank-statements/../x.xml',
      'bank-statements//x.xml',
    ])
      expect(connectionOfStatementKey(key), key).toHaveProperty('refused');
  });

  it("is imported for the registry's connection, with its source: one Received per credit", async () => {
    const { deps, publisher } = bed({ 'bank-statements/acme/s.xml': CAMT });
    const outcome = await importDroppedStatement(deps, 'bank-statements/acme/s.xml');
    expect(outcome.status).toBe('imported');
    const received = publisher.ofType('BankTransaction.Received');
    expect(received.length).toBeGreaterThan(0);
    expect(outcome.status === 'imported' && outcome.published).toBe(received.length);
    expect(new Set(received.map((e) => e.source))).toEqual(new Set(['com.example.acme']));
    expect(new Set(received.map((e) => (e.detail as { connection: string }).connection))).toEqual(
      new Set(['acme']),
    );
    expect(
      received.every(
        (e) => (e.detail as { statement: { key: string } }).statement.key === 'bank-statements/acme/s.xml',
      ),
    ).toBe(true);
  });

  it('is refused, publishing nothing, for an unknown connection, a missing object or a file no parser reads', async () => {
    const { deps, publisher, logger } = bed({
      'bank-statements/globex/s.xml': CAMT,
      'bank-statements/acme/notes.txt': new TextEncoder().encode('not a statement'),
    });
    const unknown = await importDroppedStatement(deps, 'bank-statements/globex/s.xml');
    expect(unknown).toEqual({
      status: 'refused',
      reasons: ["connection: no connection 'globex' in the registry"],
    });
    const gone = await importDroppedStatement(deps, 'bank-statements/acme/gone.xml');
    expect(gone).toEqual({ status: 'refused', reasons: ['object: no longer exists'] });
    const unreadable = await importDroppedStatement(deps, 'bank-statements/acme/notes.txt');
    expect(unreadable.status).toBe('refused');
    expect(unreadable.status === 'refused' && unreadable.reasons.join()).toMatch(
      /content: expected a camt\.053/,
    );
    const outside = await importDroppedStatement(deps, 'elsewhere/acme/s.xml');
    expect(outside.status).toBe('refused');
    expect(publisher.events).toEqual([]);
    expect(logger.lines.filter((l) => l.message === 'bank statement refused')).toHaveLength(4);
  });

  it('is tried again when it cannot be read: the error is thrown, nothing published', async () => {
    const { deps, publisher } = bed({}, async () => {
      throw new Error('S3 unavailable');
    });
    await expect(importDroppedStatement(deps, 'bank-statements/acme/s.xml')).rejects.toThrow(
      'S3 unavailable',
    );
    expect(publisher.events).toEqual([]);
  });
});
