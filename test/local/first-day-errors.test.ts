/**
 * What a newcomer meets before anything works, each in one line with its exit code and no stack:
 * a registry file that is missing or empty, a busy intake port, a data directory that is a file,
 * another user's, not creatable (or under /proc, where Node's recursive mkdir never returns), a
 * mistyped flag.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeProbe } from '#functions/local/connections-test.js';
import { EXIT } from '#functions/local/exit-codes.js';
import { cli } from './cli-harness.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'accounting-events.js');
const NO_STACK = /\n\s+at /;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-first-day-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('run --connections: a registry that cannot be run', () => {
  it('a missing file is one line naming it and the command that creates it; nothing is created', async () => {
    const dataDir = join(dir, 'data-missing');
    const run = await cli(
      ['run', '--connections', 'nonexist.json', '--data-dir', dataDir, '--duration', '2s'],
      {
        cwd: dir,
      },
    );
    expect(run.code).toBe(EXIT.usage);
    const first = run.stderr.split('\n')[0];
    expect(first).toContain(`--connections ${join(dir, 'nonexist.json')}: does not exist`);
    expect(first).toContain('accounting-events connections add --connections');
    expect(run.stderr).not.toContain('TypeError');
    expect(run.stderr).not.toMatch(NO_STACK);
    expect(run.stdout).not.toContain('started');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('an empty registry says it holds no connections', async () => {
    await writeFile(join(dir, 'empty.json'), '{"connections":[]}\n');
    const dataDir = join(dir, 'data-empty');
    const run = await cli(['run', '--connections', 'empty.json', '--data-dir', dataDir, '--duration', '2s'], {
      cwd: dir,
    });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr.split('\n')[0]).toContain('empty.json: holds no connections; add one first');
    expect(run.stderr).not.toContain('TypeError');
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('--data-dir that cannot be used', () => {
  it('a file given as the data directory', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const run = await cli(['run', '--data-dir', file, '--duration', '2s', '--no-console'], { cwd: dir });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toBe(
      `error: --data-dir ${file}: is a file, not a directory; choose another with --data-dir\n`,
    );
  });

  it('a data directory under a file names that file', async () => {
    const file = join(dir, 'b-file');
    await writeFile(file, 'x');
    const run = await cli(['sync', '--once', '--data-dir', join(file, 'data')], { cwd: dir });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain(`${file} is a file, not a directory`);
    expect(run.stderr).not.toContain('EEXIST: file already exists');
  });

  it('a directory of another user is refused, naming its owner', async () => {
    let foreign = '/';
    if (process.getuid?.() === 0) {
      foreign = join(dir, 'foreign');
      await mkdir(foreign);
      await chown(foreign, 4242, 4242);
    }
    const run = await cli(['sync', '--once', '--data-dir', foreign], { cwd: dir });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/: belongs to another user \(uid \d+, this process runs as uid \d+\)/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a directory this user cannot create (sysfs refuses even root)', async () => {
    const run = await cli(['sync', '--once', '--data-dir', '/sys/accounting-events-data'], { cwd: dir });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/cannot create it \((EACCES|EPERM|EROFS): not writable by this user\)/);
    expect(run.stderr).not.toMatch(NO_STACK);
  });

  it('under /proc the start ends at once with one line (it used to spin, deaf to SIGTERM)', async () => {
    const result = await new Promise<{ code: number | null; stderr: string; signalled: boolean }>(
      (resolve, reject) => {
        const child = spawn(
          process.execPath,
          [BIN, 'run', '--data-dir', '/proc/nope/data', '--duration', '2s', '--no-console'],
          { cwd: dir, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        let signalled = false;
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        // Generous: a loaded machine starts the sandbox slowly. Past it, a SIGTERM must end it.
        const term = setTimeout(() => {
          signalled = true;
          child.kill('SIGTERM');
        }, 60_000);
        const kill = setTimeout(() => child.kill('SIGKILL'), 70_000);
        child.on('error', reject);
        child.on('exit', (code) => {
          clearTimeout(term);
          clearTimeout(kill);
          resolve({ code, stderr, signalled });
        });
      },
    );
    expect(result.signalled).toBe(false);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      'error: --data-dir /proc/nope/data: cannot create /proc/nope (ENOENT); choose another with --data-dir\n',
    );
  }, 90_000);
});

describe('--intake-port and flags', () => {
  it('a busy --intake-port is one line naming the flag, exit 2', async () => {
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = (busy.address() as { port: number }).port;
    try {
      const run = await cli(
        [
          'run',
          '--intake-port',
          String(port),
          '--duration',
          '2s',
          '--no-console',
          '--data-dir',
          join(dir, 'intake'),
        ],
        { cwd: dir, env: { INTAKE_SHOPIFY_SECRET: 'shop-secret-never-printed' } },
      );
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr.split('\n')[0]).toBe(
        `error: --intake-port: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`,
      );
      expect(run.stderr).not.toContain('Error: listen');
    } finally {
      await new Promise((done) => busy.close(done));
    }
  }, 60_000);

  it('a mistyped flag gets "did you mean", and its value is not reported again as an argument', async () => {
    const run = await cli(['run', '--intervl', '5s']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toBe(
      "error: Unknown option '--intervl' (did you mean --interval?).\nRun 'accounting-events run --help' for usage.\n",
    );
  });

  it('a flag far from every known one gets no guess', async () => {
    const run = await cli(['run', '--zzzzzz']);
    expect(run.stderr).toContain("Unknown option '--zzzzzz'.");
    expect(run.stderr).not.toContain('did you mean');
  });

  it('one record is a record', () => {
    expect(describeProbe({ collection: 'IssuedInvoices', result: 'answered', records: 1 })).toBe(
      'answered (1 record)',
    );
    expect(describeProbe({ collection: 'IssuedInvoices', result: 'answered', records: 2 })).toBe(
      'answered (2 records)',
    );
  });
});
