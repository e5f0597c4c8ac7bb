/**
 * The bundler's substitutions (scripts/bundle-function.mjs) hold for the installed dependencies,
 * and fail loudly when a dependency changes shape instead of shipping a broken bundle.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { defaultProvider } from '#functions/adapters/aws/lambda-credentials.js';
import * as traced from '#functions/adapters/aws/lambda-tracer.js';
import * as untraced from '#functions/adapters/aws/untraced.js';
import { BundleFunctionError, findEmbeddedWasm, findLlhttpWasm } from '#scripts/bundle-function.mjs';

const require = createRequire(import.meta.url);
/** `WebAssembly.validate` (the project's TypeScript lib has no WebAssembly declarations). */
const validWasm = (bytes: Uint8Array) =>
  (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly.validate(
    bytes,
  );
const libxml2Raw = readFileSync(require.resolve('libxml2-wasm/lib/libxml2raw.mjs'), 'utf8');
const llhttp = (name: string) => readFileSync(require.resolve(`undici/lib/llhttp/${name}.js`), 'utf8');

describe('the bundler', () => {
  it("finds libxml2's one WebAssembly literal, and it is a valid module", () => {
    const { start, end, bytes } = findEmbeddedWasm(libxml2Raw);
    expect(end).toBeGreaterThan(start);
    expect(validWasm(bytes)).toBe(true);
    // The literal is the argument of a call, which the bundler replaces.
    expect(libxml2Raw[end]).toBe(')');
  });

  it('refuses a loader with two WebAssembly literals, or none', () => {
    const { start, end } = findEmbeddedWasm(libxml2Raw);
    const twice = `${libxml2Raw};const again=${libxml2Raw.slice(start, end)};`;
    expect(() => findEmbeddedWasm(twice)).toThrow(BundleFunctionError);
    expect(() => findEmbeddedWasm('export default 1;')).toThrow(/found 0/);
  });

  it("finds undici's llhttp modules, with and without SIMD, and refuses another shape", () => {
    for (const name of ['llhttp-wasm', 'llhttp_simd-wasm']) {
      expect(validWasm(findLlhttpWasm(llhttp(name))), name).toBe(true);
    }
    expect(() => findLlhttpWasm("module.exports = Buffer.from('AAAA', 'base64')")).toThrow(/found 0/);
    expect(() => findLlhttpWasm("const wasmBase64 = 'AAAAAAAA'")).toThrow(/not a WebAssembly module/);
  });

  it('swaps the tracer for a module with the same exports', () => {
    expect(Object.keys(untraced).sort()).toEqual(Object.keys(traced).sort());
    const client = { send: () => 'sent' };
    expect(untraced.instrumentClient(client)).toBe(client);
  });

  it('gives the SDK credentials from the environment, as Lambda sets them', async () => {
    const saved = { ...process.env };
    try {
      process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
      process.env.AWS_SECRET_ACCESS_KEY = 'secret';
      process.env.AWS_SESSION_TOKEN = 'token';
      const credentials = await defaultProvider()();
      expect(credentials).toMatchObject({
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'secret',
        sessionToken: 'token',
      });
      delete process.env.AWS_ACCESS_KEY_ID;
      await expect(defaultProvider()()).rejects.toThrow();
    } finally {
      process.env = saved;
    }
  });
});
