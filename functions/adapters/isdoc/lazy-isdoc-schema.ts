/**
 * The ISDOC schema check, imported on the first document: for processes that may never archive
 * (the local runtime), so they do not instantiate libxml2's WebAssembly at start. Not for a
 * single-file bundle (see `xsd-isdoc-schema.ts`): there the archive handler imports the check itself.
 */
import type { IsdocSchema } from '#functions/core/actions/ports.js';
import { ISDOC_SCHEMA_NAME } from './isdoc-schema-name.js';

export function createLazyIsdocSchema(): IsdocSchema {
  let loaded: Promise<IsdocSchema> | undefined;
  return {
    name: ISDOC_SCHEMA_NAME,
    async validate(xml) {
      loaded ??= import('./xsd-isdoc-schema.js').then((m) => m.createXsdIsdocSchema());
      return (await loaded).validate(xml);
    },
  };
}
