/** Processes adding to one registry file at once (as concurrent `connections add` do): they take turns, no change is lost. */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, 'registry-add-child.ts');

function runChild(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

it('keeps every entry of five processes adding ten each at once, and leaves no lock or temporary file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'connections-processes-'));
  try {
    const prefixes = ['a', 'b', 'c', 'd', 'e'];
    const results = await Promise.all(
      prefixes.map((p) => runChild([join(dir, '.local', 'connections.json'), p, '10'], import.meta.dirname)),
    );
    expect(results.map((r) => [r.code, r.stderr])).toEqual(prefixes.map(() => [0, '']));
    const file = JSON.parse(await readFile(join(dir, '.local', 'connections.json'), 'utf8'));
    expect(file.connections).toHaveLength(50);
    const names = prefixes.flatMap((p) => Array.from({ length: 10 }, (_, i) => `${p}-${i + 1}`));
    expect(file.connections.map((e: { name: string }) => e.name).sort()).toEqual(names.sort());
    expect(await readdir(join(dir, '.local'))).toEqual(['connections.json']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
