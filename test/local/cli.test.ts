import { describe, expect, it } from 'vitest';
import { operations } from '../../functions/accounting/endpoints.js';
import { parseDuration } from '../../functions/local/command.js';
import { commands } from '../../functions/local/commands/index.js';
import { EXIT } from '../../functions/local/exit-codes.js';
import { cli } from './cli-harness.js';

describe('cli: commands and help', () => {
  it('prints the program help and exits 2 without a command', async () => {
    const run = await cli([]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stdout).toContain('Usage: accounting-events <command>');
    for (const c of commands) expect(run.stdout).toContain(c.name);
  });

  it('exits 0 for --help', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain('Exit codes:');
  });

  it('rejects an unknown command with exit 2', async () => {
    const run = await cli(['frobnicate']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('unknown command "frobnicate"');
  });

  it.each(commands.map((c) => c.name))('%s --help documents its options and exit codes', async (name) => {
    const run = await cli([name, '--help']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain(`Usage: accounting-events ${name}`);
    expect(run.stdout).toContain('Exit codes:');
    expect(run.stdout).toContain('130');
  });

  it('rejects an unknown flag with exit 2 and names it', async () => {
    const run = await cli(['operations', '--bogus']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain("'--bogus'");
    expect(run.stderr).toContain('operations --help');
  });

  it('rejects stray arguments with exit 2', async () => {
    const run = await cli(['operations', 'extra']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('argument');
  });
});

describe('cli: operations', () => {
  it('--json prints the endpoint catalog: id, method, path, assumed', async () => {
    const run = await cli(['operations', '--json']);
    expect(run.code).toBe(EXIT.ok);
    const rows = JSON.parse(run.stdout) as { id: string; method: string; path: string; assumed: boolean }[];
    expect(rows).toHaveLength(operations.length);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['assumed', 'id', 'method', 'path']);
      expect(['GET', 'POST', 'PUT']).toContain(row.method);
      expect(row.path.startsWith('/v1/')).toBe(true);
    }
    expect(rows).toContainEqual({
      id: 'ReceivedOrders.transferToIssueSlip',
      method: 'POST',
      path: '/v1/ReceivedOrders/{id}/Transfer/ToIssueSlip/Fully',
      assumed: false,
    });
    expect(rows.find((r) => r.id === 'EInvoicing.status')?.assumed).toBe(true);
  });

  it('without --json prints a table with a header and a summary', async () => {
    const run = await cli(['operations']);
    expect(run.code).toBe(EXIT.ok);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+METHOD\s+PATH\s+ASSUMED$/);
    expect(run.stdout).toMatch(/IssuedInvoices\.isdoc\s+GET\s+\/v1\/IssuedInvoices\/\{id\}\/isdoc\s+no/);
    expect(lines.at(-1)).toBe(
      `${operations.length} operations, ${operations.filter((o) => o.assumed).length} with assumed paths`,
    );
  });
});

describe('cli: events', () => {
  it('lists the catalog and prints JSON Schemas of one type', async () => {
    const list = await cli(['events', '--json']);
    expect(list.code).toBe(EXIT.ok);
    const types = (JSON.parse(list.stdout) as { detailType: string }[]).map((e) => e.detailType);
    expect(types).toContain('ReceivedOrder.Created');
    expect(types).toContain('IssuedInvoice.IsdocArchived');
    const schema = await cli(['events', '--schema', '--type', 'ReceivedOrder.Created']);
    expect(schema.code).toBe(EXIT.ok);
    const parsed = JSON.parse(schema.stdout) as Record<string, { $schema?: string }>;
    expect(Object.keys(parsed)).toEqual(['ReceivedOrder.Created']);
    expect(parsed['ReceivedOrder.Created']?.$schema).toContain('2020-12');
  });

  it('--write needs --schema; an unknown --type is a usage error', async () => {
    expect((await cli(['events', '--write', 'x'])).code).toBe(EXIT.usage);
    const unknown = await cli(['events', '--type', 'Nope.Created']);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain('Nope.Created');
  });
});

describe('cli: archive', () => {
  it('needs the ls subcommand', async () => {
    const run = await cli(['archive']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('"ls"');
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['7', 7000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 's', '5 minutes', '-1s', '5d'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
