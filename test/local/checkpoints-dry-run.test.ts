/** `sync --once --dry-run` changes nothing; `checkpoints` shows what the polls left, also while the directory is in use. */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireDataDirLock } from '#functions/adapters/local/data-dir-lock.js';
import { EXIT } from '#functions/local/exit-codes.js';
import { cli } from './cli-harness.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-checkpoints-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('sync --once --dry-run and checkpoints', () => {
  const data = () => join(dir, 'data');
  const flags = () => ['--collections', 'IssuedInvoices', '--data-dir', data()];

  it('a dry run prints what would be published and creates nothing', async () => {
    const run = await cli(['sync', '--once', '--dry-run', ...flags()], { cwd: dir });
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toMatch(/IssuedInvoice\.Created\s+FA\d+/);
    expect(run.stdout).toMatch(/dry run: \d+ events would be published, in \d+ requests\n/);
    expect(run.stdout).toContain('as a first run, connection sandbox; nothing was published');
    expect(existsSync(data())).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('--dry-run needs --once and refuses --actions', async () => {
    expect((await cli(['sync', '--dry-run'])).stderr).toContain('--dry-run: only with --once');
    expect((await cli(['sync', '--once', '--dry-run', '--actions'])).stderr).toContain(
      '--dry-run: cannot be combined',
    );
  });

  it('sync --once advances the checkpoints; a dry run after it starts from them and moves none', async () => {
    const first = await cli(['sync', '--once', ...flags()], { cwd: dir });
    expect(first.code).toBe(EXIT.ok);
    const before = await cli(['checkpoints', '--json', '--data-dir', data()]);
    expect(before.code).toBe(EXIT.ok);
    const rows = before.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The change detector's checkpoint, and the payment detector's (on by default) of the same collection.
    expect(rows).toEqual(
      ['IssuedInvoices', 'IssuedInvoices/Unpaid'].map((collection) =>
        expect.objectContaining({
          connection: 'sandbox',
          collection,
          watermark: expect.any(String),
          lagMs: expect.any(Number),
          lastPollAt: expect.any(String),
        }),
      ),
    );
    const preview = await cli(['sync', '--once', '--dry-run', ...flags()], { cwd: dir });
    expect(preview.stdout).toContain('from 2 saved checkpoints');
    expect(preview.stdout).toContain('dry run: 0 events would be published');
    expect(preview.stdout.split('\n').every((l) => l.length <= 80)).toBe(true);
    const after = await cli(['checkpoints', '--json', '--data-dir', data()]);
    const rowsAfter = after.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rowsAfter.map((r) => r.watermark)).toEqual(rows.map((r) => r.watermark));
  });

  it('checkpoints while another process holds the directory: the figures of its last poll, with a note', async () => {
    const lock = await acquireDataDirLock(data(), 'run');
    try {
      const run = await cli(['checkpoints', '--data-dir', data()]);
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr).toContain('is in use by process');
      expect(run.stdout).toMatch(/^sandbox\n {2}IssuedInvoices\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}/m);
    } finally {
      await lock.release();
    }
  });

  it('checkpoints on a missing directory is an error that creates nothing', async () => {
    const run = await cli(['checkpoints', '--data-dir', join(dir, 'nope')]);
    expect(run.code).toBe(EXIT.usage);
    expect(existsSync(join(dir, 'nope'))).toBe(false);
  });
});
