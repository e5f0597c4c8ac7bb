/**
 * The run's warnings, whole: every warning and failed action in `warnings.log` of the data
 * directory (one line each, however long), the summary line that points to it, `--json` lines
 * that carry them uncut, and library `console` output kept out of the live view's terminal.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureConsole } from '#functions/local/console-capture.js';
import { createView } from '#functions/local/live-view.js';
import type { RuntimeUpdate } from '#functions/local/runtime-update.js';
import { recordWarnings, WARNINGS_FILE, warningsSummary } from '#functions/local/warnings-file.js';

const AT = new Date('2026-11-25T21:00:00.000Z');
const LONG = `delivery to https://hooks.example.test/${'p'.repeat(200)} failed:\nsecond line`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'warnings-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function recorder(dataDir = dir) {
  const passed: RuntimeUpdate[] = [];
  let closed = false;
  const file = recordWarnings(
    {
      update: (u) => void passed.push(u),
      close: () => {
        closed = true;
      },
    },
    dataDir,
    () => AT,
  );
  return { file, passed, closed: () => closed };
}

describe('warnings.log', () => {
  it('holds every warning and failed action whole, one line each, written once the data dir is open', async () => {
    const { file, passed, closed } = recorder();
    file.view.update({ kind: 'warning', message: 'before the stores opened' });
    await expect(readFile(file.path, 'utf8')).rejects.toThrow(/ENOENT/);
    file.open();
    file.view.update({ kind: 'warning', message: LONG, data: { attempt: 3 } });
    file.view.update({ kind: 'event', detailType: 'IssuedInvoice.Created', id: 'e1', at: AT });
    file.view.update({
      kind: 'action',
      route: 'hook',
      ok: true,
      detailType: 'IssuedInvoice.Created',
      id: 'e1',
    });
    file.view.update({
      kind: 'action',
      route: 'hook',
      ok: false,
      detailType: 'IssuedInvoice.Created',
      id: 'e2',
      message: 'not delivered after 5 attempts: 410',
    });
    file.view.close();
    expect(file.path).toBe(join(dir, WARNINGS_FILE));
    expect(await readFile(file.path, 'utf8')).toBe(
      [
        '2026-11-25T21:00:00.000Z before the stores opened',
        `2026-11-25T21:00:00.000Z ${LONG.replace('\n', '\\n')} {"attempt":3}`,
        '2026-11-25T21:00:00.000Z action hook failed on IssuedInvoice.Created e2: not delivered after 5 attempts: 410',
        '',
      ].join('\n'),
    );
    expect(file.count).toBe(3);
    expect(passed.map((u) => u.kind)).toEqual(['warning', 'warning', 'event', 'action', 'action']);
    expect(closed()).toBe(true);
  });

  it('is rewritten by each run', async () => {
    const first = recorder().file;
    first.open();
    first.view.update({ kind: 'warning', message: 'first run' });
    const second = recorder().file;
    second.open();
    second.view.update({ kind: 'warning', message: 'second run' });
    expect(await readFile(second.path, 'utf8')).toBe('2026-11-25T21:00:00.000Z second run\n');
  });

  it('writes nothing, not even an empty file, for a run without warnings', async () => {
    const { file } = recorder();
    file.open();
    file.view.update({ kind: 'stopped', published: 3 });
    await expect(readFile(file.path, 'utf8')).rejects.toThrow(/ENOENT/);
    expect(warningsSummary(file, 0)).toBeUndefined();
  });

  it('the summary says how many, where, and the dead-lettered deliveries', () => {
    const { file } = recorder();
    file.open();
    file.view.update({ kind: 'warning', message: 'one' });
    expect(warningsSummary(file, 0)).toBe(`1 warning in full in ${file.path}`);
    file.view.update({ kind: 'warning', message: 'two' });
    // On a wide terminal, one line.
    expect(warningsSummary(file, 1, 200)).toBe(
      `1 delivery was dead-lettered; 2 warnings in full in ${file.path}`,
    );
    expect(warningsSummary(file, 4, 200)).toBe(
      `4 deliveries were dead-lettered; 2 warnings in full in ${file.path}`,
    );
  });

  it('the summary fits 80 columns: a long path on a line of its own, whole', async () => {
    const deep = join(dir, 'a-data-directory-with-a-rather-long-name', 'of-the-company-acme-holding');
    await mkdir(deep, { recursive: true });
    const { file } = recorder(deep);
    file.open();
    file.view.update({ kind: 'warning', message: 'one' });
    const summary = warningsSummary(file, 3) ?? '';
    expect(summary).toBe(`3 deliveries were dead-lettered; 1 warning in full in\n  ${file.path}`);
    expect([...(summary.split('\n')[0] ?? '')].length).toBeLessThanOrEqual(80);
  });

  it('a file that cannot be written leaves the run going and says why in the summary', () => {
    const { file, passed } = recorder(join(dir, 'missing', 'dir'));
    file.open();
    file.view.update({ kind: 'warning', message: 'one' });
    expect(passed).toHaveLength(1);
    expect(file.error?.message).toMatch(/ENOENT/);
    expect(warningsSummary(file, 0)).toMatch(/^1 warning \(not written to .*warnings\.log: ENOENT/);
  });
});

describe('--json lines', () => {
  it('carry a warning and a failed action uncut', () => {
    let out = '';
    const view = createView(
      {
        write: (t) => {
          out += t;
        },
        isTTY: true,
      },
      { json: true },
    );
    view.update({ kind: 'warning', message: LONG });
    view.update({ kind: 'action', route: 'hook', ok: false, detailType: 'X.Y', id: 'e', message: LONG });
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; message: string });
    expect(lines.map((l) => [l.kind, l.message])).toEqual([
      ['warning', LONG],
      ['action', LONG],
    ]);
  });
});

describe('captureConsole', () => {
  it("turns a library's console output into warnings until restored", () => {
    const original = console.warn;
    const got: string[] = [];
    const restore = captureConsole((text) => got.push(text));
    try {
      console.warn('%s:WARN - socket usage at capacity=%d', '@smithy/node-http-handler', 50);
      console.error('second\nline');
      expect(console.warn).not.toBe(original);
    } finally {
      restore();
    }
    restore();
    expect(console.warn).toBe(original);
    expect(got).toEqual(['@smithy/node-http-handler:WARN - socket usage at capacity=50', 'second\nline']);
  });
});
