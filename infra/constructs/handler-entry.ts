import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActionDefinition } from '#functions/core/actions/action-definition.js';
import { findAction } from '#functions/core/actions/registry.js';

/** Repository root (this file lives in `infra/constructs/`). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Folder of the Lambda entry points that are not actions (the poller, the intake, deliveries). */
export const HANDLERS_DIR = join(PROJECT_ROOT, 'functions', 'handlers');

/** Folder of the actions; each action's definition lives in `<folder>/action.ts`. */
export const ACTIONS_DIR = join(PROJECT_ROOT, 'functions', 'core', 'actions');

/**
 * What a function is bundled from: a handler module (`entry`), or, for an action of the registry,
 * a generated entry (`source`, resolved from the project root) that imports the action's folder
 * module, its capabilities and the one generic action handler.
 */
export type HandlerEntry = { readonly entry: string } | { readonly source: string };

/** Thrown when functions must be bundled but handler modules do not exist (yet); names every one. */
export class MissingHandlerError extends Error {
  override readonly name = 'MissingHandlerError';
  constructor(readonly missing: readonly { handler: string; usedBy: string }[]) {
    super(
      `cannot bundle: ${missing.length} handler module(s) missing: ${missing
        .map((m) => `functions/handlers/${m.handler}.ts (used by ${m.usedBy})`)
        .join(
          '; ',
        )}. Each must export \`handler\`, or be an action of functions/core/actions/registry.ts; add it, or remove its route.`,
    );
  }
}

/** Thrown when an action's definition does not live in `functions/core/actions/<folder>/action.ts`. */
export class ActionModuleError extends Error {
  override readonly name = 'ActionModuleError';
}

const CAPABILITY_MODULE = (capability: string) =>
  `./functions/handlers/capabilities/${capability.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;

/** The generated Lambda entry of an action (TypeScript, imports relative to the project root). */
export function actionEntrySource(action: ActionDefinition): string {
  const file = fileURLToPath(action.module);
  const rel = relative(ACTIONS_DIR, file).split('\\').join('/');
  if (!/^[a-z0-9][a-z0-9-]*\/action\.(ts|js)$/.test(rel)) {
    throw new ActionModuleError(
      `action '${action.name}' is defined in ${relative(PROJECT_ROOT, file)}; expected functions/core/actions/<folder>/action.ts`,
    );
  }
  const capabilities = action.capabilities ?? [];
  return [
    "import { actionLambdaHandler } from './functions/handlers/action-handler.ts';",
    `import * as definitions from './functions/core/actions/${rel}';`,
    ...capabilities.map((c) => `import { ${c} } from '${CAPABILITY_MODULE(c)}';`),
    `export const handler = actionLambdaHandler(definitions, ${JSON.stringify(action.name)}, { ${capabilities.join(', ')} });`,
    // The capabilities are exported too, so a test can run them from the bundle.
    ...(capabilities.length > 0 ? [`export { ${capabilities.join(', ')} };`] : []),
    '',
  ].join('\n');
}

/**
 * The entry of the function named `handler`: the generated entry of the registry's action of that
 * name, else `functions/handlers/<handler>.ts`; `undefined` when neither exists.
 */
export function findHandlerEntry(handler: string): HandlerEntry | undefined {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(handler)) {
    throw new Error(`handler name '${handler}' is not a kebab-case module name under functions/handlers/`);
  }
  const action = findAction(handler);
  if (action) return { source: actionEntrySource(action) };
  const entry = join(HANDLERS_DIR, `${handler}.ts`);
  return existsSync(entry) ? { entry } : undefined;
}
