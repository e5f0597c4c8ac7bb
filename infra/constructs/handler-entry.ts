import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (this file lives in `infra/constructs/`). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Folder of the Lambda entry points; a route's `handler` names a module in it. */
export const HANDLERS_DIR = join(PROJECT_ROOT, 'functions', 'handlers');

/** Thrown when functions must be bundled but handler modules do not exist (yet); names every one. */
export class MissingHandlerError extends Error {
  override readonly name = 'MissingHandlerError';
  constructor(readonly missing: readonly { handler: string; usedBy: string }[]) {
    super(
      `cannot bundle: ${missing.length} handler module(s) missing: ${missing
        .map((m) => `functions/handlers/${m.handler}.ts (used by ${m.usedBy})`)
        .join(
          '; ',
        )}. Each must export \`handler\`; add the file, or remove its route from functions/core/routes.ts.`,
    );
  }
}

/** Absolute path of `functions/handlers/<handler>.ts`, or `undefined` when the file does not exist. */
export function findHandlerEntry(handler: string): string | undefined {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(handler)) {
    throw new Error(`handler name '${handler}' is not a kebab-case module name under functions/handlers/`);
  }
  const entry = join(HANDLERS_DIR, `${handler}.ts`);
  return existsSync(entry) ? entry : undefined;
}
