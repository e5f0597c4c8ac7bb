/**
 * Asset size and cold import time of every Lambda handler: each `functions/handlers/*.ts` is
 * bundled by the bundler the CDK construct runs (scripts/bundle-function.mjs, with the default
 * deployment's settings: no tracing, no source map; target node24 as on Lambda), every file of the
 * asset directory is counted, and the bundle is imported by several fresh `node` processes.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { actionRegistry } from '../functions/core/actions/registry.js';
import { ENV } from '../functions/shared/env-names.js';
import { findHandlerEntry } from '../infra/constructs/handler-entry.js';
import { BUNDLE_LIMIT_BYTES, bundleFunction } from '../scripts/bundle-function.mjs';
import { median, round } from './stats.js';

const run = promisify(execFile);

export interface BundleResult {
  name: string;
  /** Every file of the asset (`index.mjs` and what ships beside it). */
  bytes: number;
  /** The asset's files, by name, in bytes. */
  files: Record<string, number>;
  /** `bytes` ≤ 1,500,000. */
  withinLimit: boolean;
  coldImportMs: number;
}

/** Values that let a handler module build its dependencies at import time without reaching anything. */
export function handlerImportEnv(): Record<string, string> {
  const env: Record<string, string> = {
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_DEV: 'false',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  };
  for (const name of Object.values(ENV) as string[]) env[name] = placeholderFor(name);
  return env;
}

function placeholderFor(name: string): string {
  const n = name.toLowerCase();
  if (n.endsWith('_url')) return 'http://127.0.0.1:9';
  if (n.endsWith('_ms') || n.endsWith('_seconds')) return '1000';
  if (n.includes('attempts')) return '3';
  if (n.includes('page_size')) return '100';
  if (n.includes('overrides')) return '{}';
  if (n.includes('secret') && n.includes('credentials'))
    return 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:bench';
  if (n.includes('bus')) return 'bench-bus';
  if (n.includes('bucket')) return 'bench-bucket';
  if (n.includes('table')) return 'bench-table';
  if (n.includes('queue')) return 'https://sqs.eu-central-1.amazonaws.com/123456789012/bench';
  return 'bench';
}

/** The entries bundled: each `functions/handlers/*.ts` exporting `handler`, then each action; undefined without a handlers directory. */
export async function bundleEntryNames(root: string): Promise<string[] | undefined> {
  const handlersDir = join(root, 'functions', 'handlers');
  const files: string[] = [];
  try {
    const all = (await readdir(handlersDir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort();
    // Entry points export `handler`; other modules there are shared helpers.
    for (const f of all) {
      const text = await readFile(join(handlersDir, f), 'utf8');
      if (/export\s+(const|let|async\s+function|function)\s+handler\b/.test(text)) files.push(f);
    }
  } catch {
    return undefined;
  }
  // The actions have no handler file: each is bundled from its generated entry.
  return [...files.map((f) => f.replace(/\.ts$/, '')), ...actionRegistry.map((a) => a.name)];
}

export async function measureBundles(options: {
  root: string;
  coldRuns: number;
  log: (line: string) => void;
}): Promise<BundleResult[]> {
  const outDir = join(options.root, 'node_modules', '.cache', 'accounting-events-bench');
  await mkdir(outDir, { recursive: true });
  const names = await bundleEntryNames(options.root);
  if (names === undefined) {
    options.log('bundles: no functions/handlers directory');
    return [];
  }
  const results: BundleResult[] = [];
  for (const name of names) {
    const assetDir = join(outDir, name);
    const outfile = join(assetDir, 'index.mjs');
    let assetFiles: { name: string; bytes: number }[];
    try {
      await rm(assetDir, { recursive: true, force: true });
      const entry = findHandlerEntry(name);
      if (!entry) throw new Error(`no entry for ${name}`);
      ({ files: assetFiles } = await bundleFunction({
        ...('source' in entry ? { entrySource: entry.source } : { entry: entry.entry }),
        outdir: assetDir,
      }));
    } catch (error) {
      options.log(
        `bundles: ${name} failed to bundle: ${error instanceof Error ? error.message.split('\n')[0] : error}`,
      );
      continue;
    }
    const bytes = assetFiles.reduce((sum, f) => sum + f.bytes, 0);
    const times: number[] = [];
    for (let i = 0; i < options.coldRuns; i += 1) {
      const ms = await coldImport(outfile, options.root);
      if (ms === undefined) break;
      times.push(ms);
    }
    if (times.length === 0) {
      options.log(`bundles: ${name} could not be imported`);
      continue;
    }
    results.push({
      name,
      bytes,
      files: Object.fromEntries(assetFiles.map((f) => [f.name, f.bytes])),
      withinLimit: bytes <= BUNDLE_LIMIT_BYTES,
      coldImportMs: round(median(times), 1),
    });
  }
  return results;
}

/** Milliseconds a fresh `node` process spends importing `file` (process start-up excluded). */
async function coldImport(file: string, cwd: string): Promise<number | undefined> {
  const script = `const t=performance.now();await import(${JSON.stringify(pathToFileURL(resolve(file)).href)});process.stdout.write(String(performance.now()-t));`;
  try {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...handlerImportEnv() },
      timeout: 30_000,
    });
    const ms = Number(stdout.trim().split('\n').pop());
    return Number.isFinite(ms) ? ms : undefined;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    process.stderr.write(
      `cold import of ${file} failed: ${stderr.split('\n').find((l) => l.includes('Error')) ?? error}\n`,
    );
    return undefined;
  }
}
