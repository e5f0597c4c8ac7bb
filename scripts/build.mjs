#!/usr/bin/env node
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
// Builds the command line (and everything it runs: the functions, the local runtime, the sandbox)
// into dist/ with esbuild, so `npx accounting-events` runs without development tools. `npm ci` and
// `npm install` run it through `prepare`. Packages stay external: they come from node_modules.
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
await rm(`${root}dist`, { recursive: true, force: true });
await build({
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
  logLevel: 'warning',
});
