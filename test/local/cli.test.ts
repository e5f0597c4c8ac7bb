import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations, operationsFor } from '#functions/accounting/endpoints.js';
import { HELP_WIDTH, parseDuration, wrapHelp } from '#functions/local/command.js';
import { commands } from '#functions/local/commands/index.js';
import { EXIT } from '#functions/local/exit-codes.js';
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
    // `sandbox` prints its delegate's own help (same flags as `npm run sandbox`).
    expect(run.stdout).toContain(name === 'sandbox' ? 'Usage: sandbox' : `Usage: accounting-events ${name}`);
    expect(run.stdout).toContain('Exit codes:');
    expect(run.stdout).toContain('130');
  });

  it.each(['--help', ...commands.filter((c) => !c.passthrough).map((c) => c.name)])(
    '%s --help fits an 80-column terminal',
    async (name) => {
      const run = await cli(name === '--help' ? ['--help'] : [name, '--help']);
      for (const line of run.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(HELP_WIDTH);
    },
  );

  it('wraps a help line at spaces, under its description, keeping every word', () => {
    const line = `  --flag X    ${'word '.repeat(30).trim()}`;
    const wrapped = wrapHelp(line).split('\n');
    expect(wrapped.length).toBeGreaterThan(1);
    for (const row of wrapped) expect(row.length).toBeLessThanOrEqual(HELP_WIDTH);
    for (const row of wrapped.slice(1)) expect(row).toMatch(/^ {14}word/);
    expect(
      wrapped
        .join(' ')
        .split(/\s+/)
        .filter((w) => w === 'word'),
    ).toHaveLength(30);
    expect(wrapHelp('short  line')).toBe('short  line');
  });

  it.each([
    ['run', 'Usage: accounting-events run'],
    ['sandbox', 'Usage: sandbox'],
  ])('help %s prints the same help as %s --help', async (name, usage) => {
    const run = await cli(['help', name]);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toContain(usage);
    expect(run.stdout).toContain('Exit codes:');
    expect(run.stdout).toBe((await cli([name, '--help'])).stdout);
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

  it('prints the catalog of the configured variant (ACCOUNTING_SERVICE_VARIANT, --variant wins)', async () => {
    const run = await cli(['operations', '--json'], { env: { ACCOUNTING_SERVICE_VARIANT: 'cz' } });
    expect(run.code).toBe(EXIT.ok);
    const rows = JSON.parse(run.stdout) as { id: string; method: string; path: string; assumed: boolean }[];
    expect(rows).toHaveLength(operationsFor('cz').length);
    expect(rows.some((r) => r.assumed)).toBe(false);
    expect(rows).toContainEqual({
      id: 'ReceivedOrders.transferToIssuedInvoice',
      method: 'POST',
      path: '/v1/ReceivedOrders/{id}/Transfer/ToIssuedInvoice/Fully',
      assumed: false,
    });
    const sk = await cli(['operations', '--json', '--variant', 'sk'], {
      env: { ACCOUNTING_SERVICE_VARIANT: 'cz' },
    });
    expect(JSON.parse(sk.stdout)).toHaveLength(operations.length);
    const bad = await cli(['operations'], { env: { ACCOUNTING_SERVICE_VARIANT: 'at' } });
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain('ACCOUNTING_SERVICE_VARIANT: expected one of sk, cz');
  });

  it('without --json prints a table with a header and a summary', async () => {
    const run = await cli(['operations']);
    expect(run.code).toBe(EXIT.ok);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+METHOD\s+PATH\s+ASSUMED$/);
    expect(run.stdout).toMatch(/IssuedInvoices\.isdoc\s+GET\s+\/v1\/IssuedInvoices\/\{id\}\/isdoc\s+no/);
    expect(lines.slice(-2)).toEqual([
      `variant sk: ${operations.length} operations, ${operations.filter((o) => o.assumed).length} with assumed paths;`,
      'OAuth scope Service.OpenApi.Access.Sk',
    ]);
    expect(lines.every((l) => l.length <= 80)).toBe(true);
  });

  it('names the Czech scope in the summary of --variant cz', async () => {
    const run = await cli(['operations', '--variant', 'cz']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout.trim().split('\n').slice(-2)).toEqual([
      `variant cz: ${operationsFor('cz').length} operations, 0 with assumed paths;`,
      'OAuth scope Mph.OpenApi.Access.Cz',
    ]);
    expect(run.stdout).not.toContain('Service.OpenApi.Access.Sk');
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

  it('--schema --write DIR writes one schema per detail-type and the events doc (npm run events:schema)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-cli-'));
    try {
      const run = await cli(['events', '--schema', '--write', 'events/schemas'], { cwd: dir });
      expect(run.code).toBe(EXIT.ok);
      const { readdir, readFile } = await import('node:fs/promises');
      const files = await readdir(join(dir, 'events', 'schemas'));
      expect(files).toContain('ReceivedOrder.Created.json');
      // One file per detail-type, plus index.json.
      const types = JSON.parse((await cli(['events', '--json'])).stdout) as unknown[];
      expect(files.filter((f) => f !== 'index.json').length).toBe(types.length);
      expect(await readFile(join(dir, 'docs', 'events.md'), 'utf8')).toContain('ReceivedOrder.Created');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('--write needs --schema; an unknown --type is a usage error', async () => {
    expect((await cli(['events', '--write', 'x'])).code).toBe(EXIT.usage);
    const unknown = await cli(['events', '--type', 'Nope.Created']);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain(
      '--type: expected a detail-type of the event catalog, got "Nope.Created"',
    );
  });

  it('deliveries test: a --type outside the catalog is a usage error, and nothing is sent', async () => {
    const run = await cli([
      'deliveries',
      'test',
      'http://127.0.0.1:9/hook',
      '--type',
      'IssuedInvoice.Craeted',
    ]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain(
      '--type: expected a detail-type of the event catalog, got "IssuedInvoice.Craeted"',
    );
    expect(run.stdout).not.toContain('POST');
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

describe('cli: flag validation of the runtime commands', () => {
  it.each([
    [['run', '--interval', 'soon'], '--interval: expected a duration'],
    [['run', '--interval', '10ms'], '--interval: expected a duration between 100ms and 24h'],
    [['run', '--duration', '0s'], '--duration'],
    [['run', '--collections', 'ReceivedOrders,Nope'], '--collections: unknown collection "Nope"'],
    [['run', '--collections', ' , '], '--collections: expected a comma-separated list'],
    [['run', '--base-url', 'ftp://example.com'], '--base-url: expected an http:// or https:// URL'],
    [['run', '--interval'], '--interval: expected a value'],
    [['run', 'extra'], 'argument: this command takes no arguments'],
    [['sync', '--once', '--duration', '5s'], '--duration: cannot be combined with --once'],
    [['backfill'], '--since'],
    [['backfill', '--since', 'yesterday'], '--since: expected an ISO date-time'],
    [['backfill', '--since', '2026-13-45'], '--since: expected an ISO date-time'],
    [['replay'], 'expected exactly one FILE'],
    [['events', '--write', 'out'], '--write: needs --schema'],
  ])('%j exits 2: %s', async (argv, message) => {
    const run = await cli(argv);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('accepts a valid collection list case-insensitively (reaching the configuration check)', async () => {
    const run = await cli(['run', '--no-sandbox', '--collections', 'receivedorders,IssuedInvoices'], {
      env: {},
    });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('ACCOUNTING_BASE_URL');
  });

  it('--no-sandbox without credentials is a configuration error that names the variables and prints no secret', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-cli-'));
    try {
      const secret = 'very-secret-client-secret-4711';
      const run = await cli(['run', '--no-sandbox', '--base-url', 'http://127.0.0.1:9', '--data-dir', dir], {
        cwd: dir,
        env: { ACCOUNTING_API_KEY: 'very-secret-api-key-0815', ACCOUNTING_CLIENT_SECRET: secret },
      });
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toMatch(/apiKey|ACCOUNTING_API_KEY/);
      for (const text of [run.stdout, run.stderr]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain('very-secret-api-key-0815');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a malformed SANDBOX_* variable is a configuration error that names the variable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-cli-'));
    try {
      const run = await cli(['sync', '--once', '--data-dir', join(dir, 'data')], {
        cwd: dir,
        env: { SANDBOX_ACTIVITY: 'lots' },
      });
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toContain('sandbox settings: SANDBOX_ACTIVITY:');
      expect(run.stderr).not.toContain('--activity');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads credentials from ./.env without overriding the environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-cli-'));
    try {
      await writeFile(join(dir, '.env'), 'ACCOUNTING_BASE_URL=not a url\n');
      const fromFile = await cli(['run', '--no-sandbox'], { cwd: dir, env: {} });
      expect(fromFile.code).toBe(EXIT.usage);
      expect(fromFile.stderr).toContain('ACCOUNTING_BASE_URL');
      expect(fromFile.stderr).toContain('http or https URL');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('cli: replay validates every line before publishing', () => {
  it('names the bad line and exits 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-cli-'));
    try {
      const file = join(dir, 'events.jsonl');
      await writeFile(
        file,
        '{"detail-type":"ReceivedOrder.Created","detail":{"version":1}}\nnot json\n{"detail-type":"ReceivedOrder.Craeted","detail":{}}\n',
      );
      const run = await cli(['replay', file, '--data-dir', dir]);
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toContain('3 invalid lines');
      expect(run.stderr).toContain("line 1: event 'ReceivedOrder.Created' is invalid");
      expect(run.stderr).toContain('line 2: not JSON');
      expect(run.stderr).toContain(
        'line 3: detail-type: expected a detail-type of the event catalog, got "ReceivedOrder.Craeted"',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('cli: sync --once on the sandbox', () => {
  it('polls every collection once, writes --events-out, and replay --dry-run accepts that file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-cli-'));
    try {
      const out = join(dir, 'events.jsonl');
      const run = await cli(
        [
          'sync',
          '--once',
          '--data-dir',
          dir,
          '--events-out',
          out,
          '--collections',
          'ReceivedOrders,BusinessPartners',
        ],
        {
          cwd: dir,
        },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stdout).toMatch(/ReceivedOrder\.Created\s+\d+/);
      expect(run.stdout).toMatch(/\d+ events from 2 collections in \d+ requests/);
      const replay = await cli(['replay', out, '--dry-run']);
      expect(replay.code).toBe(EXIT.ok);
      expect(replay.stdout).toMatch(/^\d+ events in .* are valid\n$/);
      // A second sync on the same data directory resumes from the checkpoints: nothing new.
      const again = await cli(
        ['sync', '--once', '--data-dir', dir, '--collections', 'ReceivedOrders,BusinessPartners'],
        {
          cwd: dir,
        },
      );
      expect(again.code).toBe(EXIT.ok);
      expect(again.stdout).toMatch(/^0 events from 2 collections/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('cli: backfill --since', () => {
  it('publishes what changed since then, again after a reset, and leaves sync caught up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-cli-'));
    try {
      const since = '2025-07-01T00:00:00Z';
      const out = join(dir, 'events.jsonl');
      const args = ['backfill', '--since', since, '--collections', 'ReceivedOrders', '--data-dir', dir];
      const first = await cli([...args, '--events-out', out], { cwd: dir });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(EXIT.ok);
      const published = Number(/(\d+) events published/.exec(first.stdout)?.[1]);
      expect(published).toBeGreaterThan(0);
      const { readFile } = await import('node:fs/promises');
      const lines = (await readFile(out, 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(published);
      for (const line of lines) {
        const event = JSON.parse(line) as { 'detail-type': string; detail: { modifiedDate: string } };
        expect(event['detail-type']).toMatch(/^ReceivedOrder\.(Created|Updated)$/);
        expect(Date.parse(event.detail.modifiedDate)).toBeGreaterThanOrEqual(Date.parse(since));
      }
      const caughtUp = await cli(['sync', '--once', '--collections', 'ReceivedOrders', '--data-dir', dir], {
        cwd: dir,
      });
      expect(caughtUp.stdout).toMatch(/^0 events from 1 collections/m);
      const again = await cli(args, { cwd: dir });
      expect(again.code).toBe(EXIT.ok);
      expect(again.stdout).toContain(`${published} events published`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
