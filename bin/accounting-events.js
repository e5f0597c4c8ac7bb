#!/usr/bin/env node
// Launcher of the `accounting-events` CLI. It runs the build in dist/ (made by `npm ci` through
// `prepare`, or `npm run build`) while the build is up to date with the sources: every file it was
// built from still has the size and modification time dist/inputs.json recorded (a few ms of
// `stat`). Otherwise, in a checkout with the development tools (tsx), it runs the TypeScript
// sources, so an edit takes effect at once; without them (`npm ci --omit=dev`, an installed
// package) the build. ACCOUNTING_EVENTS_BUILD=1 runs the build even when it is older than the
// sources; ACCOUNTING_EVENTS_BUILD=0 runs the sources even when the build is up to date.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function buildIsCurrent() {
  try {
    const { inputs } = JSON.parse(readFileSync(join(ROOT, 'dist', 'inputs.json'), 'utf8'));
    for (const [path, [size, mtimeMs]] of Object.entries(inputs)) {
      const s = statSync(join(ROOT, path));
      if (s.size !== size || s.mtimeMs !== mtimeMs) return false;
    }
    return true;
  } catch {
    return false;
  }
}

async function sources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    return undefined;
  }
  register();
  return import('../functions/local/cli.ts');
}

async function load() {
  const choice = process.env.ACCOUNTING_EVENTS_BUILD;
  if (choice !== '1' && (choice === '0' || !buildIsCurrent())) {
    const cli = await sources();
    if (cli) return cli;
  }
  try {
    return await import('../dist/cli.js');
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli.js')) throw error;
    process.stderr.write('error: the build is missing (dist/cli.js); run `npm run build` (npm ci runs it)\n');
    process.exit(1);
  }
}

const { main } = await load();
const code = await main(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), 1000).unref();
