#!/usr/bin/env node
// Bundles one Lambda handler into a directory: the one way a function's code is built, used by the
// CDK construct (infra/constructs/app-function.ts runs this file as a child process, as its local
// bundling) and by the bench (bench/bundles.ts imports `bundleFunction`), so both measure the same
// asset. esbuild, minified ESM for Node, every dependency bundled (the AWS SDK too: the code
// deployed is the code tested). What the plugins below do, and why:
//
// - WebAssembly ships brotli-compressed beside `index.mjs`, inflated with node:zlib when it is
//   instantiated, instead of as text inside it: libxml2-wasm carries its module (819 KB) as a
//   string literal, about 1.1 MB once written as UTF-8 (`libxml2.wasm.br`: about 300 KB); undici
//   carries llhttp twice (with and without SIMD) in base64, 72 KB each (about 15 KB each as files).
// - `@aws-sdk/credential-provider-node` (the SDK's default credential chain) is replaced by
//   `functions/adapters/aws/lambda-credentials.ts`: credentials from the environment, the only link
//   of the chain Lambda uses; the others bring the STS and SSO clients (about 110 KB).
// - Without tracing, `functions/adapters/aws/lambda-tracer.ts` (Powertools Tracer, which brings the
//   X-Ray SDK, cls-hooked and semver) is replaced by `untraced.ts`, which has the same exports.
// - Source maps only when asked: a map of a bundle is four times its size.
//
// `node scripts/bundle-function.mjs '<json options>'` bundles and prints nothing on success.
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { build, version as esbuildVersion } from 'esbuild';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The most bytes a function's asset (every file of its directory) may have. */
export const BUNDLE_LIMIT_BYTES = 1_500_000;

/** ESM output has no `require`; some dependencies still call it. */
export const REQUIRE_SHIM_BANNER =
  "import { createRequire as __aeCreateRequire } from 'node:module'; const require = __aeCreateRequire(import.meta.url);";

/** The file beside `index.mjs` that holds libxml2's WebAssembly, brotli-compressed. */
export const LIBXML2_WASM_FILE = 'libxml2.wasm.br';

const LIBXML2_RAW = /[\\/]libxml2-wasm[\\/]lib[\\/]libxml2raw\.mjs$/;
const LLHTTP_WASM = /[\\/]undici[\\/]lib[\\/]llhttp[\\/](llhttp(?:_simd)?-wasm)\.js$/;
const BUNDLED_WASM = join(PROJECT_ROOT, 'functions', 'shared', 'bundled-wasm.ts');
const LAMBDA_CREDENTIALS = join(PROJECT_ROOT, 'functions', 'adapters', 'aws', 'lambda-credentials.ts');
const TRACER_MODULE = join(PROJECT_ROOT, 'functions', 'adapters', 'aws', 'lambda-tracer.ts');
const UNTRACED_MODULE = join(PROJECT_ROOT, 'functions', 'adapters', 'aws', 'untraced.ts');

/** The loader's source changed shape: the bundle cannot be made as designed. */
export class BundleFunctionError extends Error {
  name = 'BundleFunctionError';
}

/**
 * The WebAssembly string literal of libxml2-wasm's loader: its start, its end (after the closing
 * quote) and the bytes it stands for. The literal is the only one that starts with `\0asm`.
 */
export function findEmbeddedWasm(source) {
  const starts = [];
  for (const opening of ["'\0asm", "'\\0asm", '"\0asm', '"\\0asm']) {
    for (let i = source.indexOf(opening); i >= 0; i = source.indexOf(opening, i + 1)) starts.push(i);
  }
  if (starts.length !== 1) {
    throw new BundleFunctionError(
      `libxml2raw.mjs: expected one WebAssembly string literal, found ${starts.length}`,
    );
  }
  const start = starts[0];
  const quote = source[start];
  let end = start + 1;
  while (end < source.length && source[end] !== quote) end += source[end] === '\\' ? 2 : 1;
  if (end >= source.length)
    throw new BundleFunctionError('libxml2raw.mjs: the WebAssembly literal never ends');
  end += 1;
  // A string literal and nothing else (it starts and ends with its quote, no unescaped one inside).
  const text = runInNewContext(source.slice(start, end));
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 0xff) throw new BundleFunctionError(`libxml2raw.mjs: character ${code} at ${i} is not a byte`);
    bytes[i] = code;
  }
  if (!isWasm(bytes)) {
    throw new BundleFunctionError('libxml2raw.mjs: the literal is not a WebAssembly module');
  }
  return { start, end, bytes };
}

/** Brotli at its best setting takes seconds for 819 KB: compressed once per WebAssembly module, then cached. */
function compressedWasm(bytes) {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const cached = join(PROJECT_ROOT, 'node_modules', '.cache', 'accounting-events-bundles', `${hash}.wasm.br`);
  if (existsSync(cached)) return readFileSync(cached);
  const compressed = brotliCompressSync(bytes, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
      [zlib.BROTLI_PARAM_LGWIN]: zlib.BROTLI_MAX_WINDOW_BITS,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  mkdirSync(dirname(cached), { recursive: true });
  // Written aside, then renamed: a bundler running at the same time never reads half a file.
  const partial = `${cached}.${process.pid}.partial`;
  writeFileSync(partial, compressed);
  renameSync(partial, cached);
  return compressed;
}

function isWasm(bytes) {
  return bytes[0] === 0 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d && bytes[4] === 1;
}

/** The base64 WebAssembly of one of undici's llhttp modules (`const wasmBase64 = '…'`). */
export function findLlhttpWasm(source) {
  const matches = [...source.matchAll(/\bwasmBase64 = '([A-Za-z0-9+/=]+)'/g)];
  if (matches.length !== 1) {
    throw new BundleFunctionError(`llhttp: expected one wasmBase64 literal, found ${matches.length}`);
  }
  const bytes = Buffer.from(matches[0][1], 'base64');
  if (!isWasm(bytes)) throw new BundleFunctionError('llhttp: wasmBase64 is not a WebAssembly module');
  return bytes;
}

/** Embedded WebAssembly becomes a compressed file beside the bundle (see the top of this file). */
function wasmFiles(outdir) {
  const ship = (name, bytes) => writeFileSync(join(outdir, name), compressedWasm(bytes));
  const load = (name) => `__aeBundledWasm(${JSON.stringify(name)})`;
  return {
    name: 'wasm-files',
    setup(b) {
      b.onLoad({ filter: LIBXML2_RAW }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const { start, end, bytes } = findEmbeddedWasm(source);
        ship(LIBXML2_WASM_FILE, bytes);
        // The literal's decoder, called on it (`ea('\0asm…')`), becomes the inflated file's bytes.
        const call = /([A-Za-z_$][\w$]*)\($/.exec(source.slice(Math.max(0, start - 40), start));
        if (!call || source[end] !== ')') {
          throw new BundleFunctionError(
            'libxml2raw.mjs: the WebAssembly literal is not the argument of a call',
          );
        }
        const contents = `import { bundledWasm as __aeBundledWasm } from ${JSON.stringify(BUNDLED_WASM)};\n${source.slice(0, start - call[1].length - 1)}${load(LIBXML2_WASM_FILE)}${source.slice(end + 1)}`;
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
      b.onLoad({ filter: LLHTTP_WASM }, (args) => {
        const name = `${LLHTTP_WASM.exec(args.path)[1]}.wasm.br`;
        ship(name, findLlhttpWasm(readFileSync(args.path, 'utf8')));
        // The module exported the bytes (a Buffer); it still does, read when first required.
        const contents = `const { bundledWasm: __aeBundledWasm } = require(${JSON.stringify(BUNDLED_WASM)});\nmodule.exports = ${load(name)};\n`;
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/** The SDK's default credential chain as Lambda resolves it: from the environment. */
function lambdaCredentials() {
  return {
    name: 'lambda-credentials',
    setup(b) {
      b.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, () => ({ path: LAMBDA_CREDENTIALS }));
    },
  };
}

/** Tracing off: the tracer adapter is replaced by one with the same exports that traces nothing. */
function untraced() {
  return {
    name: 'untraced',
    setup(b) {
      b.onResolve({ filter: /[\\/]lambda-tracer(\.js|\.ts)?$/ }, (args) => {
        // `#functions/…` is the package's subpath import of `functions/…` (package.json `imports`).
        const path = args.path.startsWith('#')
          ? join(PROJECT_ROOT, args.path.slice(1))
          : resolve(args.resolveDir, args.path);
        const target = path.replace(/\.js$/, '.ts');
        return target === TRACER_MODULE ? { path: UNTRACED_MODULE } : undefined;
      });
    },
  };
}

/**
 * Bundles `entry` (or `entrySource`, a generated entry whose imports are relative to the project
 * root: an action's, see infra/constructs/handler-entry.ts) into `outdir` (`index.mjs`, its map when
 * `sourceMap`, and the files it loads). `target` is Lambda's runtime (`node24`).
 */
export async function bundleFunction({
  entry,
  entrySource,
  outdir,
  target = 'node24',
  sourceMap = false,
  tracing = false,
}) {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: PROJECT_ROOT,
    ...(entrySource === undefined
      ? { entryPoints: [entry] }
      : {
          stdin: {
            contents: entrySource,
            resolveDir: PROJECT_ROOT,
            sourcefile: 'action-entry.ts',
            loader: 'ts',
          },
        }),
    outfile: join(outdir, 'index.mjs'),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target,
    // Module entry points first: the ESM builds of the AWS SDK tree-shake.
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_SHIM_BANNER },
    // Non-ASCII text as UTF-8, not as escapes (shorter).
    charset: 'utf8',
    sourcemap: sourceMap,
    metafile: true,
    logLevel: 'warning',
    plugins: [wasmFiles(outdir), lambdaCredentials(), ...(tracing ? [] : [untraced()])],
  });
  return { metafile: result.metafile, files: assetFiles(outdir) };
}

/** Every file of an asset directory with its size in bytes. */
export function assetFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath ?? e.path, e.name);
      return { name: path.slice(dir.length + 1), bytes: statSync(path).size };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The bundler's own source: part of every cache key, so a change to how bundles are made misses. */
const BUNDLER_DIGEST = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex');

/** SHA-256 of a file, remembered while its size and modification time are the same. */
const digests = new Map();
function digestOf(file) {
  const { size, mtimeMs } = statSync(file);
  const known = digests.get(file);
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known.digest;
  const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
  digests.set(file, { size, mtimeMs, digest });
  return digest;
}

/** Where `options` (without `outdir`) keep their bundle in `cacheDir`. */
function cacheEntryOf(options, cacheDir) {
  const { outdir: _outdir, ...rest } = options;
  const key = createHash('sha256')
    .update(
      JSON.stringify({ ...rest, esbuild: esbuildVersion, node: process.version, bundler: BUNDLER_DIGEST }),
    )
    .digest('hex')
    .slice(0, 32);
  return join(cacheDir, key);
}

/**
 * Copies the cached bundle of `options` into `options.outdir` when every file it was built from
 * (esbuild's metafile, each with its SHA-256) is unchanged; false when there is none to reuse.
 * Synchronous, so CDK's local bundling can reuse a bundle without starting the bundler.
 */
export function copyCachedBundle(options, cacheDir) {
  const dir = cacheEntryOf(options, cacheDir);
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) return false;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const unchanged = Object.entries(manifest.inputs).every(([file, hash]) => {
    const path = join(PROJECT_ROOT, file);
    return existsSync(path) && digestOf(path) === hash;
  });
  if (!unchanged) return false;
  mkdirSync(options.outdir, { recursive: true });
  cpSync(join(dir, 'files'), options.outdir, { recursive: true });
  return true;
}

/** How long a bundler waits for another one building the same bundle before building it itself. */
const LOCK_WAIT_MS = 180_000;

/**
 * `bundleFunction`, with its output kept in `cacheDir` under a key of its options, esbuild's and
 * Node's versions and this file, beside the SHA-256 of every file the bundle was built from:
 * reused only while each of those files is unchanged. Bundlers of the same options at the same
 * time (test files synthesizing side by side) build it once: the first takes the entry's lock
 * (an atomic `mkdir`), the others wait for it and copy its result.
 */
export async function bundleFunctionCached(options, cacheDir) {
  if (copyCachedBundle(options, cacheDir)) return { files: assetFiles(options.outdir), cached: true };
  const dir = cacheEntryOf(options, cacheDir);
  const lock = `${dir}.lock`;
  mkdirSync(cacheDir, { recursive: true });
  const waitUntil = Date.now() + LOCK_WAIT_MS;
  let locked = false;
  while (!locked) {
    try {
      mkdirSync(lock);
      locked = true;
    } catch (error) {
      if (error?.code !== 'EEXIST') throw error;
      if (Date.now() > waitUntil) break; // a holder that died: build without the lock
      await new Promise((r) => setTimeout(r, 250));
      if (copyCachedBundle(options, cacheDir)) return { files: assetFiles(options.outdir), cached: true };
    }
  }
  try {
    const result = await bundleFunction(options);
    const inputs = {};
    for (const file of Object.keys(result.metafile.inputs)) {
      // A virtual module (the generated action entry is part of the key) has no file to hash.
      const path = join(PROJECT_ROOT, file);
      if (existsSync(path) && statSync(path).isFile()) inputs[file] = digestOf(path);
    }
    // Written aside, then renamed: a bundler running at the same time never reads half an entry.
    const partial = `${dir}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(options.outdir, join(partial, 'files'), { recursive: true });
    writeFileSync(join(partial, 'manifest.json'), JSON.stringify({ inputs }));
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(partial, dir);
    } catch {
      rmSync(partial, { recursive: true, force: true });
    }
    return { ...result, cached: false };
  } finally {
    if (locked) rmSync(lock, { recursive: true, force: true });
  }
}

/** With this variable naming a directory, the command line bundler keeps and reuses its bundles there. */
export const BUNDLE_CACHE_ENV = 'ACCOUNTING_EVENTS_BUNDLE_CACHE';

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = JSON.parse(process.argv[2] ?? '{}');
  const cacheDir = process.env[BUNDLE_CACHE_ENV];
  try {
    if (cacheDir) await bundleFunctionCached(options, resolve(cacheDir));
    else await bundleFunction(options);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  }
}
