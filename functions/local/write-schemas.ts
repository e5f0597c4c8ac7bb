/**
 * Writes the JSON Schemas of the event catalog, `docs/events.md`, the README's table of the
 * actions' own settings (from the action registry) and the catalog's version
 * (`functions/core/events/catalog-version.ts`: the next number once the schemas changed).
 *
 *   npx tsx functions/local/write-schemas.ts [--out events/schemas] [--docs docs/events.md] [--readme README.md] [--check]
 *
 * `--check` writes nothing and exits 1 when a committed file is out of date.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { withActionSettingsRows } from '../core/actions/actions-config.js';
import { eventCatalog } from '../core/event-catalog.js';
import { CATALOG_VERSION } from '../core/events/catalog-version.js';
import { renderEventsMarkdown, renderSchemaFiles } from '../core/events/render-docs.js';

/** The generated file holding the catalog's version (relative to the project). */
export const CATALOG_VERSION_FILE = 'functions/core/events/catalog-version.ts';

/** SHA-256 of the catalog's JSON Schemas, in file order (`index.json`, which carries the version, left out). */
export function catalogFingerprint(files: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const [name, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (name !== 'index.json') hash.update(`${name}\n${text}\n`);
  }
  return hash.digest('hex');
}

/** The catalog's version now: the committed one while its schemas are those it was written for, else the next. */
export function currentCatalogVersion(committed: { version: number; fingerprint: string } = CATALOG_VERSION) {
  const fingerprint = catalogFingerprint(renderSchemaFiles(eventCatalog, committed.version));
  return {
    version: fingerprint === committed.fingerprint ? committed.version : committed.version + 1,
    fingerprint,
  };
}

/** The text of `catalog-version.ts` for a version. */
export function renderCatalogVersionFile(v: { version: number; fingerprint: string }): string {
  return `/**
 * The event catalog's version, written by \`npm run events:schema\` (\`functions/local/write-schemas.ts\`)
 * — never by hand. \`fingerprint\` is the SHA-256 of the catalog's JSON Schemas (every
 * \`events/schemas/<detail-type>.json\`, in order); when they change (a detail-type added, removed or
 * changed), the writer moves \`version\` to the next number, and \`npm run events:check\` (and the
 * catalog test) fails while this file is out of date. The change's note goes into \`catalogChangelog\`
 * (render-docs.ts): the catalog test asks for one per version.
 */
export const CATALOG_VERSION = {
  version: ${v.version},
  fingerprint: '${v.fingerprint}',
} as const;
`;
}

const flagsSchema = z.object({
  out: z.string().min(1, 'expected a folder path for --out').default('events/schemas'),
  docs: z.string().min(1, 'expected a file path for --docs').default('docs/events.md'),
  readme: z.string().min(1, 'expected a file path for --readme').default('README.md'),
  check: z.boolean().default(false),
});

async function readOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Ignores layout only (a formatter may align tables and wrap JSON blocks): whitespace and `---` runs. */
function normalizeMarkdown(text: string): string {
  return text.replace(/\s+/g, '').replace(/-{3,}/g, '---');
}

/** Files that differ from what the catalog renders (relative paths); empty when up to date. */
export async function staleFiles(
  out: string,
  docs: string,
  readme?: string,
  versionFile = CATALOG_VERSION_FILE,
): Promise<string[]> {
  const stale: string[] = [];
  const current = currentCatalogVersion();
  if ((await readOrUndefined(versionFile)) !== renderCatalogVersionFile(current)) stale.push(versionFile);
  const files = renderSchemaFiles(eventCatalog, current.version);
  for (const [name, text] of files) {
    if ((await readOrUndefined(join(out, name))) !== text) stale.push(join(out, name));
  }
  const existing = await readdir(out).catch(() => [] as string[]);
  for (const name of existing) if (name.endsWith('.json') && !files.has(name)) stale.push(join(out, name));
  const committed = await readOrUndefined(docs);
  if (
    committed === undefined ||
    normalizeMarkdown(committed) !== normalizeMarkdown(renderEventsMarkdown(eventCatalog, current.version))
  ) {
    stale.push(docs);
  }
  if (readme !== undefined) {
    const text = await readOrUndefined(readme);
    if (text === undefined || withActionSettingsRows(text) !== text) stale.push(readme);
  }
  return stale;
}

export async function writeSchemas(
  out: string,
  docs: string,
  readme?: string,
  versionFile = CATALOG_VERSION_FILE,
): Promise<number> {
  const current = currentCatalogVersion();
  const files = renderSchemaFiles(eventCatalog, current.version);
  await mkdir(out, { recursive: true });
  for (const name of await readdir(out)) {
    if (name.endsWith('.json') && !files.has(name)) await rm(join(out, name));
  }
  for (const [name, text] of files) await writeFile(join(out, name), text);
  await mkdir(dirname(docs), { recursive: true });
  await writeFile(docs, renderEventsMarkdown(eventCatalog, current.version));
  // Outside the project (no version file there) the version is not the writer's to keep.
  if ((await readOrUndefined(versionFile)) !== undefined) {
    await writeFile(versionFile, renderCatalogVersionFile(current));
  }
  if (readme !== undefined) {
    const text = await readOrUndefined(readme);
    // Outside the project (no README there) there is no settings table to write.
    const updated = text === undefined ? undefined : withActionSettingsRows(text);
    if (text !== undefined && updated === undefined)
      throw new Error(`${readme} has no action-settings markers`);
    if (updated !== undefined && updated !== text) await writeFile(readme, updated);
  }
  return files.size;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      docs: { type: 'string' },
      readme: { type: 'string' },
      check: { type: 'boolean' },
    },
    strict: true,
  });
  const flags = flagsSchema.parse(values);
  if (flags.check) {
    const stale = await staleFiles(flags.out, flags.docs, flags.readme);
    if (stale.length > 0) {
      process.stderr.write(`out of date (run write-schemas): ${stale.join(', ')}\n`);
      process.exitCode = 1;
    }
    return;
  }
  const count = await writeSchemas(flags.out, flags.docs, flags.readme);
  process.stdout.write(`wrote ${count} files to ${flags.out} and ${flags.docs}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
