import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  connectionsFileJsonSchema,
  parseConnectionsDocument,
} from '#functions/core/connections/connections-file.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs of the connection registry', () => {
  it('has docs/connections.schema.json up to date (npm run connections:schema)', () => {
    expect(JSON.parse(read('docs/connections.schema.json'))).toEqual(connectionsFileJsonSchema());
  });

  it('has a valid example file in docs/connections.md', () => {
    const example = /```json\n(\{\n {2}"\$schema"[\s\S]*?)\n```/.exec(read('docs/connections.md'))?.[1];
    expect(example).toBeDefined();
    const entries = parseConnectionsDocument(JSON.parse(example as string), 'docs/connections.md');
    expect(entries.map((e) => [e.name, e.variant])).toEqual([
      ['acme', 'sk'],
      ['brno-shop', 'cz'],
    ]);
  });

  it('documents every field of an entry', () => {
    const doc = read('docs/connections.md');
    const schema = connectionsFileJsonSchema() as {
      properties: { connections: { items: { properties: Record<string, unknown> } } };
    };
    for (const field of Object.keys(schema.properties.connections.items.properties)) {
      expect(doc).toContain(`| \`${field}\` |`);
    }
  });
});
