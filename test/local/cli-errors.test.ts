/** The CLI's errors as a user meets them: all at once, named, with nothing created and no stack. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '#functions/local/exit-codes.js';
import { createView, type RuntimeUpdate } from '#functions/local/live-view.js';
import { connectionOfUrl } from '#functions/local/runtime-settings.js';
import { cli } from './cli-harness.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'accounting-events.js');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-errors-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('cli errors: all of them at once', () => {
  it('lists every bad flag in one error', async () => {
    const run = await cli(['sync', '--bogus', '--interval', 'soon', '--collections', 'Foo,Bar', '--json=1']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain("Unknown option '--bogus'");
    expect(run.stderr).toContain('--interval: expected a duration');
    expect(run.stderr).toContain('--collections: unknown collections "Foo", "Bar"');
    expect(run.stderr).toContain('--json: takes no value');
  });

  it('lists every bad setting of every section and creates nothing in the data directory', async () => {
    const dataDir = join(dir, 'data');
    const run = await cli(['run', '--data-dir', dataDir], {
      cwd: dir,
      env: {
        SANDBOX_ACTIVITY: 'lots',
        ACCOUNTING_REQUEST_TIMEOUT_MS: '-3',
        POLLER_PAGE_SIZE: 'abc',
        ACTIONS_ISDOC_MAX_BYTES: 'x',
      },
    });
    expect(run.code).toBe(EXIT.usage);
    for (const name of [
      'SANDBOX_ACTIVITY',
      'ACCOUNTING_REQUEST_TIMEOUT_MS',
      'POLLER_PAGE_SIZE',
      'ACTIONS_ISDOC_MAX_BYTES',
    ]) {
      expect(run.stderr).toContain(name);
    }
    expect(existsSync(dataDir)).toBe(false);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('bad flags and bad settings come in one error, and nothing is created', async () => {
    const dataDir = join(dir, 'data-both');
    const run = await cli(['run', '--data-dir', dataDir, '--interval', 'soon', '--bogus'], {
      cwd: dir,
      env: { POLLER_PAGE_SIZE: 'abc', ACTIONS_ISDOC_MAX_BYTES: 'x' },
    });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain("Unknown option '--bogus'");
    expect(run.stderr).toContain('--interval: expected a duration');
    expect(run.stderr).toContain('invalid settings:');
    expect(run.stderr).toContain('POLLER_PAGE_SIZE');
    expect(run.stderr).toContain('ACTIONS_ISDOC_MAX_BYTES');
    expect(existsSync(dataDir)).toBe(false);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('backfill without --since says what it needs, in words', async () => {
    const run = await cli(['backfill']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('--since: required');
    expect(run.stderr).not.toContain('Invalid input');
  });

  it('archive ls on a missing data directory is an error and does not create it', async () => {
    const missing = join(dir, 'missing');
    const run = await cli(['archive', 'ls', '--data-dir', missing]);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain(`no data directory at ${missing}`);
    expect(existsSync(missing)).toBe(false);
  });

  it('intake send with no intake listening says where it looked and what to do, without a stack', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((done) => closed.close(done));
    const run = await cli(['intake', 'send', '--source', 'shopify', '--url', url], {
      env: { INTAKE_SHOPIFY_SECRET: 'shop-secret-never-printed' },
      cwd: dir,
    });
    expect(run.code).toBe(EXIT.failure);
    expect(run.stderr).toBe(
      `error: cannot reach the intake at ${url} (ECONNREFUSED): start 'run --intake-port N', or pass --url with the address it printed\n`,
    );
    expect(run.stdout).toBe('');
  });

  it.each([
    ['run', '--duration', '1m'],
    ['sync', '--once'],
  ])('%s off the sandbox at a closed port fails at once in one line naming the URL', async (...args) => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((done) => closed.close(done));
    const run = await cli([...args, '--base-url', url, '--data-dir', join(dir, `dead-${args[0]}`)], {
      env: { ACCOUNTING_API_KEY: 'key-never-printed' },
      cwd: dir,
    });
    expect(run.code).toBe(EXIT.failure);
    expect(run.stderr).toBe(
      `error: cannot reach the service at ${url} (ECONNREFUSED): check --base-url and that the service is up\n`,
    );
    expect(run.stdout).not.toContain('retried');
  });

  it('replay of a file with one bad line names it in the singular and publishes nothing', async () => {
    const file = join(dir, 'one-bad.jsonl');
    await writeFile(file, '{"bad":1}\n');
    const run = await cli(['replay', file, '--data-dir', join(dir, 'replay-data')], { cwd: dir });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain(`error: 1 invalid line in ${file}, nothing was published:\nline 1: detail:`);
    expect(existsSync(join(dir, 'replay-data'))).toBe(false);
  });

  it('the connection name of a service keeps its port', () => {
    expect(connectionOfUrl('http://127.0.0.1:8080/api')).toBe('127-0-0-1-8080');
    expect(connectionOfUrl('https://api.example.com')).toBe('api-example-com');
    expect(connectionOfUrl('http://127.0.0.1:8080')).not.toBe(connectionOfUrl('http://127.0.0.1:8081'));
  });
});

describe('cli output: --json and pipes', () => {
  it('in --json, an action outcome is an action line, ok', () => {
    let out = '';
    const view = createView({ write: (t) => (out += t) }, { json: true });
    const at = new Date();
    const updates: RuntimeUpdate[] = [
      { kind: 'event', detailType: 'IssuedInvoice.IsdocArchived', id: 'a', note: 's3 isdoc/x', at },
      { kind: 'event', detailType: 'Action.Failed', id: 'b', at },
      { kind: 'event', detailType: 'IssuedInvoice.Created', id: 'c', at },
    ];
    for (const u of updates) view.update(u);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.kind, l.ok])).toEqual([
      ['action', true],
      ['action', false],
      ['event', undefined],
    ]);
  });

  it('a reader that goes away (| head) ends the command cleanly: exit 0, no stack', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'events', '--schema'], {
        env: { PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stdout.once('data', () => child.stdout.destroy());
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);
  });
});
