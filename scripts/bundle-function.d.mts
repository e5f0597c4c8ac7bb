import type { Metafile } from 'esbuild';

export declare const PROJECT_ROOT: string;
export declare const BUNDLE_LIMIT_BYTES: number;
export declare const REQUIRE_SHIM_BANNER: string;
export declare const LIBXML2_WASM_FILE: string;

export declare class BundleFunctionError extends Error {}

export interface AssetFile {
  /** Path relative to the asset directory. */
  readonly name: string;
  readonly bytes: number;
}

export interface BundleFunctionOptions {
  /** The handler module (absolute, or relative to the project root). */
  readonly entry?: string;
  /** Or a generated entry's source, its imports relative to the project root (an action's). */
  readonly entrySource?: string;
  /** The asset directory to write. */
  readonly outdir: string;
  /** esbuild target (default `node24`, Lambda's runtime). */
  readonly target?: string;
  readonly sourceMap?: boolean;
  readonly tracing?: boolean;
}

export declare function findEmbeddedWasm(source: string): { start: number; end: number; bytes: Uint8Array };
export declare function bundleFunction(
  options: BundleFunctionOptions,
): Promise<{ metafile: Metafile; files: AssetFile[] }>;
export declare function assetFiles(dir: string): AssetFile[];
export declare function findLlhttpWasm(source: string): Buffer;
/** The variable naming the directory the command line bundler keeps and reuses its bundles in. */
export declare const BUNDLE_CACHE_ENV: string;
/** `bundleFunction`, reusing a bundle of `cacheDir` while every file it was built from is unchanged. */
export declare function bundleFunctionCached(
  options: BundleFunctionOptions,
  cacheDir: string,
): Promise<{ files: AssetFile[]; cached: boolean }>;
/** Copies the cached bundle of `options` into `options.outdir` while its sources are unchanged; false when none. */
export declare function copyCachedBundle(options: BundleFunctionOptions, cacheDir: string): boolean;
