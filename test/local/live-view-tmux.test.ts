/**
 * The live view in a real terminal: `run` inside a detached tmux session of 80×24. After several
 * redraws the title is still on the first row and nothing has scrolled into tmux's history; Ctrl-C
 * then stops the runtime cleanly (exit 130). tmux is required (`.ci/run` installs it when missing):
 * without it the test fails rather than being skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'accounting-events.js');
const SOCKET = `accounting-events-test-${process.pid}`;
const SESSION = 'live';

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForPane(what: string, test: (pane: string) => boolean, boundMs = 60_000): Promise<string> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const pane = tmux('capture-pane', '-p', '-t', SESSION);
    if (test(pane)) return pane;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${pane}`);
    await sleep(250);
  }
}

let dir: string;
beforeAll(async () => {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error('this test needs tmux (apt-get install -y tmux; .ci/run installs it when missing)');
  }
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-tmux-'));
});

afterAll(async () => {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('run redraws in place in an 80×24 terminal and stops on Ctrl-C', { timeout: 120_000 }, async () => {
  const command = [
    `cd '${dir}'`,
    `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true '${process.execPath}' '${BIN}' run --interval 500ms --data-dir data`,
    'echo "EXITED:$?"',
    'sleep 60',
  ].join('; ');
  tmux('new-session', '-d', '-s', SESSION, '-x', '80', '-y', '24', command);
  expect(tmux('display-message', '-p', '-t', SESSION, '#{pane_width}x#{pane_height}').trim()).toBe('80x24');

  // Several polls, hence many redraws (four a second), with the backfill and the actions running.
  const pane = await waitForPane('five polls', (p) => Number(/polls (\d+)/.exec(p)?.[1] ?? 0) >= 5);
  const rows = pane.split('\n');
  expect(rows[0]).toContain('accounting-events — running');
  expect(pane).toContain('counters');
  expect(pane).toContain('events');
  for (const row of rows) expect(row.length).toBeLessThanOrEqual(80);
  // Nothing scrolled off the top: every redraw replaced the previous frame.
  expect(tmux('display-message', '-p', '-t', SESSION, '#{history_size}').trim()).toBe('0');

  tmux('send-keys', '-t', SESSION, 'C-c');
  const after = await waitForPane('the exit code', (p) => p.includes('EXITED:'));
  expect(after).toContain('EXITED:130');
  expect(after).not.toMatch(/\n\s+at /);
});

it('run --companies 12 shows a line per connection, the rest summed up, in 80×24', {
  timeout: 120_000,
}, async () => {
  const session = 'companies';
  const command = [
    `cd '${dir}'`,
    `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true SANDBOX_DOCUMENTS=16 '${process.execPath}' '${BIN}' run --companies 12 --interval 500ms --data-dir companies`,
    'echo "EXITED:$?"',
    'sleep 60',
  ].join('; ');
  tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '24', command);
  const capture = () => tmux('capture-pane', '-p', '-t', session);
  const deadline = Date.now() + 60_000;
  let pane = capture();
  while (!/\+\d+ more: /.test(pane) || !/healthy +\d+ ev · polled \d/.test(pane)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for the connections; the pane:\n${pane}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    pane = capture();
  }
  const rows = pane.split('\n');
  expect(rows[0]).toContain('accounting-events — running');
  expect(pane).toContain('connections (12)');
  expect(pane).toMatch(/sandbox-\d+ +healthy/);
  for (const row of rows) expect(row.length).toBeLessThanOrEqual(80);
  expect(tmux('display-message', '-p', '-t', session, '#{history_size}').trim()).toBe('0');
  tmux('send-keys', '-t', session, 'C-c');
  const deadline2 = Date.now() + 60_000;
  while (!capture().includes('EXITED:')) {
    if (Date.now() > deadline2) throw new Error('timed out waiting for the exit code');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(capture()).toContain('EXITED:130');
});
