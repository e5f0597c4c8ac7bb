/**
 * Every help text and every table of the CLI fits an 80-column terminal: the help of each command
 * (and of the sandbox), and the table commands against a data directory seeded by a real
 * `sync --once --actions` (checkpoints, archived ISDOC), dead letters with long errors and a
 * registry with a long connection name. A line of 81 columns fails the test, naming the command.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileDeadLetterStore } from '#functions/adapters/local/dead-letter-store.js';
import { commands } from '#functions/local/commands/index.js';
import { EXIT } from '#functions/local/exit-codes.js';
import { BUS_DIR, DEAD_LETTERS_FILE } from '#functions/local/runtime.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { type CliRun, cli } from './cli-harness.js';

const COLUMNS = 80;
const SANDBOX_ENV = { SANDBOX_DOCUMENTS: '30', SANDBOX_PARTNERS: '5' };

/** The lines of stdout and stderr wider than 80 columns, with the command that printed them. */
function tooWide(argv: readonly string[], run: CliRun): string[] {
  return `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((line) => [...line].length > COLUMNS)
    .map((line) => `${argv.join(' ')}: ${[...line].length} columns: ${line}`);
}

let dir: string;
let data: string;
let sandbox: Sandbox;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eighty-columns-'));
  data = join(dir, 'data');
  sandbox = await startSandbox({ sizes: { documents: 10, partners: 3, perCollection: {} } });
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('80 columns', () => {
  it('every --help', { timeout: 120_000 }, async () => {
    const helps: string[][] = [
      ['--help'],
      ...commands.map((c) => [c.name, '--help']),
      ['connections', 'add', '--help'],
      ['archive', 'ls', '--help'],
      ['dlq', 'ls', '--help'],
    ];
    const wide: string[] = [];
    for (const argv of helps) {
      const run = await cli(argv, { cwd: dir, env: {} });
      expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(EXIT.ok);
      expect(run.stdout.length, argv.join(' ')).toBeGreaterThan(0);
      wide.push(...tooWide(argv, run));
    }
    expect(wide).toEqual([]);
  });

  it('every table, on a seeded data directory', { timeout: 240_000 }, async () => {
    const env = {
      ...SANDBOX_ENV,
      ACME_HOLDING_INTERNATIONAL_SERVICES_CREDENTIALS: JSON.stringify({ apiKey: 'sandbox-api-key' }),
    };
    const seeded = await cli(['sync', '--once', '--actions', '--data-dir', data], { cwd: dir, env });
    expect(seeded.code, seeded.stderr).toBe(EXIT.ok);
    const letters = openFileDeadLetterStore(join(data, BUS_DIR, DEAD_LETTERS_FILE));
    await letters.add({
      routeId: 'archive-isdoc',
      event: {
        version: '0',
        id: '0e7c6f3a-1b2c-4d5e-8f90-123456789abc',
        'detail-type': 'IssuedAdvanceInvoice.EInvoiceStatusChanged',
        source: 'accounting.a-connection-with-a-rather-long-name',
        account: '000000000000',
        time: '2026-01-01T00:00:00Z',
        region: 'local',
        resources: [],
        detail: { id: '0e7c6f3a-1b2c-4d5e-8f90-123456789abc', record: { DocumentNumber: 'ZF2026000001' } },
      },
      attempts: 5,
      error: `PutObject failed: ${'the store answered 503 Slow Down, please reduce your request rate '.repeat(3)}`,
      at: new Date('2026-02-01T10:00:00Z'),
    });
    const registry = ['--connections', join(dir, 'connections.json')];
    const added = await cli(
      [
        'connections',
        'add',
        ...registry,
        '--name',
        'acme-holding-international-services',
        '--base-url',
        `${sandbox.baseUrl}/a/rather/long/path/prefix`,
        '--credentials-secret',
        'env:ACME_HOLDING_INTERNATIONAL_SERVICES_CREDENTIALS',
        '--collections',
        'IssuedInvoices,ReceivedOrders,BusinessPartners,IssuedAdvanceInvoices',
      ],
      { cwd: dir, env },
    );
    expect(added.code, added.stderr).toBe(EXIT.ok);
    const tables: string[][] = [
      ['checkpoints', '--data-dir', data],
      ['archive', 'ls', '--data-dir', data],
      ['dlq', 'ls', '--data-dir', data],
      ['events'],
      ['operations'],
      ['sync', '--once', '--dry-run', '--data-dir', data],
      ['connections', 'list', ...registry],
      ['connections', 'test', 'acme-holding-international-services', ...registry],
    ];
    const wide: string[] = [];
    for (const argv of tables) {
      const run = await cli(argv, { cwd: dir, env });
      expect(run.stdout.split('\n').length, `${argv.join(' ')}: ${run.stderr}`).toBeGreaterThan(2);
      wide.push(...tooWide(argv, run));
    }
    expect(wide).toEqual([]);
  });
});
