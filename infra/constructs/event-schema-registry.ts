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
import { eventSchemaOf } from './json-schema-draft4.js';

export interface EventSchemaFile {
  /** File name without `.json`, e.g. `ReceivedOrder.Created`. */
  readonly name: string;
  readonly schema: unknown;
}

/** Reads every `*.json` of the folder, sorted by name; [] when the folder is absent. */
export function readEventSchemas(dir: string): EventSchemaFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const path = join(dir, file);
      try {
        return { name: basename(file, '.json'), schema: JSON.parse(readFileSync(path, 'utf8')) as unknown };
      } catch (error) {
        throw new Error(`event schema file ${file} is not valid JSON`, { cause: error });
      }
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
        description: `Detail of ${file.name} events`,
        content: JSON.stringify(eventSchemaOf(file.name, file.schema as Parameters<typeof eventSchemaOf>[1])),
      });
      this.schemas.push(schema);
    }
  }
}
