/**
 * The local registry file, `{ "connections": [ entry, … ] }` (an optional `$schema` beside it for
 * editors). The whole document is validated at once: every malformed entry is named (by its
 * `name`, or its index when the name itself is missing or bad) with every bad setting, and a name
 * used twice is refused. `docs/connections.schema.json` is generated from `connectionsFileJsonSchema`.
 */

import * as z from 'zod';
import { parseCheckedConnectionEntry } from './checked-entry.js';
import { type ConnectionEntry, ConnectionEntryError, connectionEntrySchema } from './connection-entry.js';
import { byConnectionName, ConnectionRegistryError } from './registry.js';

/** The document's shape before each entry is checked (entries are validated one by one, for names). */
const documentShape = z.looseObject({
  $schema: z.string({ error: 'expected a string (a path or URL of the JSON Schema)' }).optional(),
  connections: z.array(z.unknown(), { error: 'expected a list of connection entries' }),
});

/** The whole file, for the JSON Schema in docs. */
export const connectionsFileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path or URL of this JSON Schema, for editors.'),
    connections: z
      .array(connectionEntrySchema)
      .describe('The connections (companies) this deployment polls and acts on; names are unique.'),
  })
  .describe('The connection registry file of accounting-events (`run --connections FILE`).');

/** A file that cannot be used as it is: names the file and every problem, never a value. */
export class ConnectionsFileError extends ConnectionRegistryError {
  override readonly name = 'ConnectionsFileError';
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${problems.join('; ')}`, options);
  }
}

/** Validates every entry of a parsed document; throws one `ConnectionsFileError` listing them all. */
export function parseConnectionsDocument(document: unknown, file: string): ConnectionEntry[] {
  const shape = documentShape.safeParse(document);
  if (!shape.success) {
    throw new ConnectionsFileError(
      file,
      shape.error.issues.map((i) => `${i.path.map(String).join('.') || '(document)'}: ${i.message}`),
      { cause: shape.error },
    );
  }
  const problems: string[] = [];
  const entries: ConnectionEntry[] = [];
  const seen = new Map<string, number>();
  for (const [index, raw] of shape.data.connections.entries()) {
    try {
      const entry = parseCheckedConnectionEntry(raw, `connections[${index}]`);
      const first = seen.get(entry.name);
      if (first !== undefined) {
        problems.push(
          `connection '${entry.name}': name: duplicate of connections[${first}] (names are unique)`,
        );
        continue;
      }
      seen.set(entry.name, index);
      entries.push(entry);
    } catch (error) {
      if (!(error instanceof ConnectionEntryError)) throw error;
      const where = error.entry === `connections[${index}]` ? '' : ` (connections[${index}])`;
      problems.push(`${error.message.replace(/^connection '[^']*'/, `connection '${error.entry}'${where}`)}`);
    }
  }
  if (problems.length > 0) throw new ConnectionsFileError(file, problems);
  return entries.sort(byConnectionName);
}

/** The JSON Schema of the whole file (draft 2020-12, input side: defaults are optional). */
export function connectionsFileJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(connectionsFileSchema, {
    target: 'draft-2020-12',
    io: 'input',
  }) as Record<string, unknown>;
  return { $schema, title: 'accounting-events connection registry', ...rest };
}

/** `docs/connections.schema.json` as committed (`npm run connections:schema` writes it). */
export function renderConnectionsSchema(): string {
  return `${JSON.stringify(connectionsFileJsonSchema(), null, 2)}\n`;
}
