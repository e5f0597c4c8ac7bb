/** The package's bin launcher end to end: a real process, stopped by SIGINT, exits 130 after a clean stop. */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'accounting-events.js');
// Bounds that only end a broken test: a start through the launcher takes seconds when quiet and
// several times that on a busy machine.
const KILL_AFTER_MS = 150_000;
const TEST_TIMEOUT_MS = 200_000;

function runUntil(
  args: string[],
  cwd: string,
  ready: RegExp,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!signalled && ready.test(stdout)) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

it(
  'run stops cleanly on SIGINT with exit code 130 and keeps its data directory',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-bin-'));
    try {
      const result = await runUntil(
        ['run', '--interval', '500ms', '--data-dir', 'data', '--no-actions'],
        dir,
        /poll: \d+ events/,
      );
      expect(result.stdout).toContain('started: service http://127.0.0.1:');
      expect(result.stdout).toMatch(/stopping: interrupted/);
      expect(result.stdout).toMatch(/stopped: \d+ events published/);
      expect(result.stderr).toContain('SIGINT: stopping cleanly');
      expect(result.code).toBe(130);
      const kept = await readdir(join(dir, 'data'));
      expect(kept).toEqual(expect.arrayContaining(['bus', 'dynamodb', 's3']));
      // The lock is released by the clean stop.
      expect(kept).not.toContain('lock');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  TEST_TIMEOUT_MS,
);

it(
  'operations --json through the launcher exits 0 with JSON',
  async () => {
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'operations', '--json'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, stdout }));
    });
    expect(out.code).toBe(0);
    expect(Array.isArray(JSON.parse(out.stdout))).toBe(true);
  },
  TEST_TIMEOUT_MS,
);

it(
  'one Ctrl-C that arrives twice (terminal and npm) still stops cleanly',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'accounting-events-bin-'));
    try {
      const child = spawn(
        process.execPath,
        [BIN, 'run', '--interval', '500ms', '--data-dir', 'data', '--no-actions'],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await new Promise<void>((resolve) =>
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          if (/poll: \d+ events/.test(stdout)) resolve();
        }),
      );
      // The same Ctrl-C twice, as a process group and its relaying parent deliver it: the second
      // arrives once the first is handled (two pending signals of one kind would merge into one).
      const handled = new Promise<void>((resolve) =>
        child.stderr.on('data', () => {
          if (stderr.includes('SIGINT: stopping cleanly')) resolve();
        }),
      );
      child.kill('SIGINT');
      await handled;
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stdout).toMatch(/stopped: \d+ events published/);
      expect(stderr.match(/SIGINT: stopping cleanly/g)).toHaveLength(1);
      expect(await readdir(join(dir, 'data'))).not.toContain('lock');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  TEST_TIMEOUT_MS,
);
