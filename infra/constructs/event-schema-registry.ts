/**
 * The EventBridge schema registry holding the event catalog: one schema per JSON Schema file
 * the catalog writes to `events/schemas/` (`npm run events:schema`), read at synth time.
 * An absent or empty folder gives an empty registry (and a warning), not a failed synth.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Annotations } from 'aws-cdk-lib';
import * as eventschemas from 'aws-cdk-lib/aws-eventschemas';
import { Construct } from 'constructs';
import * as z from 'zod';
import { eventSchemaOf } from './json-schema-draft4.js';

export interface EventSchemaFile {
  /** File name without `.json`, e.g. `ReceivedOrder.Created`. */
  readonly name: string;
  readonly schema: unknown;
  readonly description?: string;
}

/** The catalog's `index.json`: one entry per detail-type (not a schema itself). */
const indexSchema = z.object({
  events: z.array(z.object({ detailType: z.string(), description: z.string(), file: z.string() })),
});

const INDEX_FILE = 'index.json';

function readJson(dir: string, file: string): unknown {
  try {
    return JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
  } catch (error) {
    throw new Error(`event schema file ${file} is not valid JSON`, { cause: error });
  }
}

/** Reads every `*.json` of the folder but the index, sorted by name; [] when the folder is absent. */
export function readEventSchemas(dir: string): EventSchemaFile[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir);
  const descriptions = new Map<string, string>();
  if (files.includes(INDEX_FILE)) {
    const index = indexSchema.safeParse(readJson(dir, INDEX_FILE));
    if (index.success) for (const e of index.data.events) descriptions.set(e.file, e.description);
  }
  return files
    .filter((file) => file.endsWith('.json') && file !== INDEX_FILE)
    .sort()
    .map((file) => {
      const description = descriptions.get(file);
      return {
        name: basename(file, '.json'),
        schema: readJson(dir, file),
        ...(description ? { description } : {}),
      };
    });
}

/** Registry schema names allow letters, digits and `@._-`. */
export function schemaNameOf(fileName: string): string {
  return fileName.replace(/[^A-Za-z0-9@._-]/g, '_').slice(0, 385);
}

export interface EventSchemaRegistryProps {
  readonly registryName: string;
  readonly schemasDir: string;
}

export class EventSchemaRegistry extends Construct {
  readonly registry: eventschemas.CfnRegistry;
  readonly schemas: eventschemas.CfnSchema[] = [];

  constructor(scope: Construct, id: string, props: EventSchemaRegistryProps) {
    super(scope, id);
    this.registry = new eventschemas.CfnRegistry(this, 'Registry', {
      registryName: props.registryName,
      description: 'Detail schemas of every event type of the accounting-events catalog',
    });
    const files = readEventSchemas(props.schemasDir);
    if (files.length === 0) {
      Annotations.of(this).addWarningV2(
        'accounting-events:noEventSchemas',
        `no JSON Schema files in ${props.schemasDir}: the registry is empty (run \`npm run events:schema\`)`,
      );
    }
    for (const file of files) {
      const schema = new eventschemas.CfnSchema(this, `Schema-${file.name}`, {
        registryName: this.registry.attrRegistryName,
        schemaName: schemaNameOf(file.name),
        type: 'JSONSchemaDraft4',
        description: (file.description ?? `${file.name} events`).slice(0, 256),
        content: JSON.stringify(eventSchemaOf(file.name, file.schema as Parameters<typeof eventSchemaOf>[1])),
      });
      this.schemas.push(schema);
    }
  }
}
