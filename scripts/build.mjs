#!/usr/bin/env node
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// Builds the command line (and everything it runs: the functions, the local runtime, the sandbox)
// into dist/ with esbuild, so `npx accounting-events` runs without development tools. `npm ci` and
// `npm install` run it through `prepare`. Packages stay external: they come from node_modules.
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
await rm(`${root}dist`, { recursive: true, force: true });
const startedAt = Date.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'functions/local/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});

// What the build was made from: each input's size and modification time. The launcher
// (bin/accounting-events.js) runs the build only while every input is still so; a file changed
// during the build is recorded as changed.
const inputs = {};
for (const path of Object.keys(result.metafile.inputs)) {
  const s = await stat(join(root, path));
  inputs[path] = [s.size, s.mtimeMs > startedAt ? -1 : s.mtimeMs];
}
await writeFile(join(root, 'dist', 'inputs.json'), `${JSON.stringify({ inputs })}\n`);
