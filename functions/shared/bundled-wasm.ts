/**
 * A WebAssembly module that a Lambda bundle ships beside `index.mjs`, brotli-compressed
 * (scripts/bundle-function.mjs writes the file and makes the dependency that embedded the module
 * call this instead). Only meaningful inside a bundle: `import.meta.url` is then the bundle's.
 */
import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';

/** The inflated bytes of the file `name` beside the bundle. */
export function bundledWasm(name: string): Buffer {
  return brotliDecompressSync(readFileSync(new URL(`./${name}`, import.meta.url)));
}
