/**
 * The launcher's choice between the build in dist/ and the TypeScript sources: the build while
 * every file it was made from is as dist/inputs.json recorded it, the sources once one changed, and
 * ACCOUNTING_EVENTS_BUILD=1 / 0 to force either. Run on a copy of the launcher beside stand-in
 * entry points that say which one ran.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
let dir: string;

const entry = (which: string) =>
  `export async function main(argv) { process.stdout.write('${which} ' + argv.join(' ') + '\\n'); return 0; }\n`;

/** Records `functions/input.ts` as the build's one input, as scripts/build.mjs does. */
async function recordInputs(): Promise<void> {
  const s = await stat(join(dir, 'functions', 'input.ts'));
  const inputs = { 'functions/input.ts': [s.size, s.mtimeMs] };
  await writeFile(join(dir, 'dist', 'inputs.json'), JSON.stringify({ inputs }));
}

async function launch(env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(process.execPath, [join(dir, 'bin', 'accounting-events.js'), 'x'], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return stdout.trim();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'accounting-events-launcher-'));
  for (const sub of ['bin', 'dist', 'functions/local']) await mkdir(join(dir, sub), { recursive: true });
  await copyFile(join(ROOT, 'bin', 'accounting-events.js'), join(dir, 'bin', 'accounting-events.js'));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(join(dir, 'dist', 'cli.js'), entry('build'));
  await writeFile(join(dir, 'functions', 'local', 'cli.ts'), entry('sources'));
  await writeFile(join(dir, 'functions', 'input.ts'), 'export const a = 1;\n');
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('runs the build while its inputs are unchanged, and the sources once one changed', async () => {
  await recordInputs();
  expect(await launch()).toBe('build x');
  // Edited: same size, a later modification time.
  const later = new Date(Date.now() + 5_000);
  await utimes(join(dir, 'functions', 'input.ts'), later, later);
  expect(await launch()).toBe('sources x');
  await recordInputs();
  expect(await launch()).toBe('build x');
  // Edited to another size, the time kept.
  const s = await stat(join(dir, 'functions', 'input.ts'));
  await writeFile(join(dir, 'functions', 'input.ts'), 'export const a = 12;\n');
  await utimes(join(dir, 'functions', 'input.ts'), s.atime, s.mtime);
  expect(await launch()).toBe('sources x');
}, 60_000);

it('runs the sources when an input is gone or the record is missing or unreadable', async () => {
  await writeFile(
    join(dir, 'dist', 'inputs.json'),
    JSON.stringify({ inputs: { 'functions/gone.ts': [1, 1] } }),
  );
  expect(await launch()).toBe('sources x');
  await writeFile(join(dir, 'dist', 'inputs.json'), '{');
  expect(await launch()).toBe('sources x');
  await rm(join(dir, 'dist', 'inputs.json'));
  expect(await launch()).toBe('sources x');
}, 60_000);

it('ACCOUNTING_EVENTS_BUILD=1 runs the build even when it is older; =0 the sources even when it is current', async () => {
  await recordInputs();
  expect(await launch({ ACCOUNTING_EVENTS_BUILD: '0' })).toBe('sources x');
  const later = new Date(Date.now() + 10_000);
  await utimes(join(dir, 'functions', 'input.ts'), later, later);
  expect(await launch({ ACCOUNTING_EVENTS_BUILD: '1' })).toBe('build x');
}, 60_000);
