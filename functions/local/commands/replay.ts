import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import * as z from 'zod';
import type { DetailType } from '#functions/core/event-catalog.js';
import type { BusEvent } from '#functions/core/ports.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { UsageError } from '../usage-error.js';
import { startRuntimeForCommand, withRuntime } from './runtime-command.js';
import { connectionFlags, connectionSchemaShape, toConnection } from './shared-flags.js';

/**
 * One line of a replay file: the `--events-out` format (EventBridge field names); `detailType` is
 * accepted too. The detail-type is one of the catalog's (its schema is passed in: the catalog loads
 * on first use).
 */
const lineSchema = (detailType: z.ZodType<DetailType>) =>
  z
    .object({
      source: z.string().min(1, { message: 'expected a non-empty source' }).optional(),
      'detail-type': detailType.optional(),
      detailType: detailType.optional(),
      time: z.iso.datetime({ offset: true }).optional(),
      detail: z.record(z.string(), z.unknown(), { message: 'expected the detail object' }),
    })
    .refine((l) => (l['detail-type'] ?? l.detailType) !== undefined, {
      path: ['detail-type'],
      message: 'expected a detail-type',
    });

/** Reads and validates every line against the event catalog; throws `UsageError` listing the bad lines. */
export async function readReplayFile(path: string, source: string): Promise<BusEvent[]> {
  const { detailTypeSchema, parseDetail } = await import('#functions/core/event-catalog.js');
  const schema = lineSchema(detailTypeSchema);
  const events: BusEvent[] = [];
  const problems: string[] = [];
  let lineNo = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const text of lines) {
      lineNo += 1;
      if (text.trim() === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        problems.push(`line ${lineNo}: not JSON`);
        continue;
      }
      const line = schema.safeParse(json);
      if (!line.success) {
        problems.push(
          `line ${lineNo}: ${line.error.issues.map((i) => `${i.path.join('.') || '(line)'}: ${i.message}`).join('; ')}`,
        );
        continue;
      }
      const detailType = (line.data['detail-type'] ?? line.data.detailType) as DetailType;
      try {
        parseDetail(detailType, line.data.detail);
      } catch (error) {
        problems.push(`line ${lineNo}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      events.push({
        source: line.data.source ?? source,
        detailType,
        detail: line.data.detail,
        ...(line.data.time ? { time: new Date(line.data.time) } : {}),
      });
    }
  } catch (error) {
    throw new UsageError(
      `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
      'replay',
      {
        cause: error,
      },
    );
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).join('\n');
    const more = problems.length > 20 ? `\n… and ${problems.length - 20} more` : '';
    throw new UsageError(
      `${problems.length} invalid ${problems.length === 1 ? 'line' : 'lines'} in ${path}, nothing was published:\n${shown}${more}`,
      'replay',
    );
  }
  return events;
}

export const replayCommand = defineCommand({
  name: 'replay',
  positionalsHelp: '<FILE>',
  summary:
    'Publish events from a JSON-lines file through the local bus (each validated against the catalog first).',
  description:
    'FILE has one event per line, as --events-out writes them. Every line is validated before the first is\npublished: one bad line and nothing is published (exit 2). The actions run on the events unless --no-actions.',
  flags: {
    ...connectionFlags,
    'no-actions': { type: 'boolean', description: 'Validate and publish, but run no action.' },
    'dry-run': { type: 'boolean', description: 'Only validate the file.' },
  },
  schema: z.object({
    ...connectionSchemaShape,
    'no-actions': z.boolean().default(false),
    'dry-run': z.boolean().default(false),
    positionals: z.tuple([z.string().min(1)], { message: 'expected exactly one FILE' }),
  }),
  async run(o, ctx) {
    const file = resolve(ctx.cwd, o.positionals[0]);
    const events = await readReplayFile(file, 'accounting.replay');
    if (o['dry-run']) {
      ctx.stdout.write(`${events.length} events in ${o.positionals[0]} are valid\n`);
      return EXIT.ok;
    }
    const started = await startRuntimeForCommand(
      {
        command: 'replay',
        connection: toConnection(o),
        intervalMs: 1000,
        actions: !o['no-actions'],
        activity: false,
        backfillProgress: false,
      },
      ctx,
    );
    const { runtime } = started;
    await withRuntime(started, async () => {
      for (let i = 0; i < events.length && !ctx.signal.aborted; i += 100) {
        await runtime.bus.publish(events.slice(i, i + 100));
      }
      await runtime.drain();
    });
    if (!o.json)
      ctx.stdout.write(
        `replayed ${events.length} events; ${runtime.bus.deadLetters().length} dead-lettered deliveries\n`,
      );
    if (ctx.signal.aborted) return EXIT.interrupted;
    return runtime.bus.deadLetters().length > 0 ? EXIT.failure : EXIT.ok;
  },
});
