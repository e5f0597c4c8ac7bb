/**
 * The official ISDOC 6.0.2 XML Schema (`isdoc-invoice-6.0.2.xsd`, which includes
 * `isdoc-core-6.0.2.xsd`), checked with libxml2 compiled to WebAssembly (`libxml2-wasm`): no native
 * build, and it runs in a Lambda bundle. The schema files are embedded, compressed
 * (`isdoc-schema-files.ts`, generated from `schema/*.xsd`); `xs:include` is resolved from memory
 * by an input provider that answers only for their names under a base of its own.
 *
 * libxml2-wasm instantiates its WebAssembly module when it is imported (top-level await). It is
 * imported statically: in a single-file bundle a lazily initialised copy deadlocks on the import
 * cycles inside the package, so importing this module costs the instantiation, and only the
 * archive's handler (and, lazily, the local runtime) imports it. The schema is compiled on the
 * first validation, once per process, then shared. Every parsed document is disposed after its check.
 */
import * as libxml2 from 'libxml2-wasm';
import type { IsdocSchema, SchemaVerdict } from '#functions/core/actions/ports.js';
import { isdocSchemaFiles } from './isdoc-schema-files.js';
import { ISDOC_SCHEMA_NAME } from './isdoc-schema-name.js';

export { ISDOC_SCHEMA_NAME };

const MAIN_SCHEMA = 'isdoc-invoice-6.0.2.xsd';
/** Base of the embedded files; `xs:include schemaLocation="isdoc-core-6.0.2.xsd"` resolves below it. */
const SCHEMA_BASE = 'isdoc-schema:///';

type Libxml2 = typeof import('libxml2-wasm');

/** The schema could not be compiled (the embedded files are broken): a fault of the build, not of a document. */
export class IsdocSchemaLoadError extends Error {
  override readonly name = 'IsdocSchemaLoadError';
  constructor(
    readonly details: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`the ISDOC schema could not be loaded: ${details.join('; ')}`, options);
  }
}

interface Loaded {
  lib: Libxml2;
  validator: InstanceType<Libxml2['XsdValidator']>;
  /** Milliseconds the import and the compilation took (for the first check's log). */
  loadMs: number;
}

function messagesOf(error: unknown): string[] {
  const details = (error as { details?: { message: string; line?: number }[] }).details;
  if (Array.isArray(details) && details.length > 0) {
    return details.map((d) => {
      const message = String(d.message).trim();
      return d.line && d.line > 0 ? `line ${d.line}: ${message}` : message;
    });
  }
  return [error instanceof Error ? error.message : String(error)];
}

async function load(now: () => number): Promise<Loaded> {
  const start = now();
  const lib = libxml2;
  const encoder = new TextEncoder();
  const buffers: Record<string, Uint8Array> = {};
  for (const [name, text] of Object.entries(isdocSchemaFiles()))
    buffers[SCHEMA_BASE + name] = encoder.encode(text);
  const main = buffers[SCHEMA_BASE + MAIN_SCHEMA];
  if (!main) throw new IsdocSchemaLoadError([`${MAIN_SCHEMA} is not embedded`]);
  lib.xmlRegisterInputProvider(new lib.XmlBufferInputProvider(buffers));
  let schemaDoc: InstanceType<Libxml2['XmlDocument']> | undefined;
  try {
    schemaDoc = lib.XmlDocument.fromBuffer(main, { url: SCHEMA_BASE + MAIN_SCHEMA });
    const validator = lib.XsdValidator.fromDoc(schemaDoc);
    return { lib, validator, loadMs: now() - start };
  } catch (error) {
    throw new IsdocSchemaLoadError(messagesOf(error), { cause: error });
  } finally {
    schemaDoc?.dispose();
  }
}

export interface XsdIsdocSchemaOptions {
  /** Told once, after the schema is loaded, how long that took. */
  onLoad?: (loadMs: number) => void;
  /** Monotonic milliseconds (default `performance.now`). */
  now?: () => number;
}

/** One schema per process: every `createXsdIsdocSchema()` shares the compiled validator. */
let shared: Promise<Loaded> | undefined;

/** The ISDOC 6.0.2 schema check; nothing is loaded until the first `validate`. */
export function createXsdIsdocSchema(options: XsdIsdocSchemaOptions = {}): IsdocSchema {
  const now = options.now ?? (() => performance.now());
  const loaded = async (): Promise<Loaded> => {
    const first = shared === undefined;
    shared ??= load(now);
    try {
      const result = await shared;
      if (first) options.onLoad?.(result.loadMs);
      return result;
    } catch (error) {
      shared = undefined;
      throw error;
    }
  };
  return {
    name: ISDOC_SCHEMA_NAME,
    async validate(xml: Uint8Array): Promise<SchemaVerdict> {
      const { lib, validator } = await loaded();
      let doc: InstanceType<Libxml2['XmlDocument']>;
      try {
        doc = lib.XmlDocument.fromBuffer(xml, { url: 'document.isdoc' });
      } catch (error) {
        if (error instanceof lib.XmlParseError) {
          return { valid: false, errors: messagesOf(error).map((m) => `not well-formed XML: ${m}`) };
        }
        throw error;
      }
      try {
        validator.validate(doc);
        return { valid: true, errors: [] };
      } catch (error) {
        if (error instanceof lib.XmlValidateError) return { valid: false, errors: messagesOf(error) };
        throw error;
      } finally {
        doc.dispose();
      }
    },
  };
}
