/**
 * The ISDOC schema check (libxml2 as WebAssembly and the embedded ISDOC 6.0.2 schema files), loaded
 * on the first document, once per container. Only the bundles of actions that declare the
 * `isdocSchema` capability import this module, so no other function carries it.
 */
import { createXsdIsdocSchema } from '#functions/adapters/isdoc/xsd-isdoc-schema.js';

export const isdocSchema = createXsdIsdocSchema();
