import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { openFileJournal } from '#functions/adapters/local/bus-journal.js';
import { acquireDataDirLock } from '#functions/adapters/local/data-dir-lock.js';
import { openFileDeadLetterStore } from '#functions/adapters/local/dead-letter-store.js';
import type { DeadLetter } from '#functions/adapters/local/local-bus.js';
import { type CommandContext, defineCommand } from '../command.js';
import { type RedriveResult, redriveDeadLetters } from '../dead-letter-redrive.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { BUS_DIR, DEAD_LETTERS_FILE } from '../runtime.js';
import { UsageError } from '../usage-error.js';
import { DEFAULT_DATA_DIR } from './shared-flags.js';

const SUBCOMMANDS = 'expected "ls" or "redrive"';

export const dlqCommand = defineCommand({
  name: 'dlq',
  positionalsHelp: 'ls | redrive',
  summary: 'List the dead letters kept in the data directory, or hand them back to their routes.',
  description: [
    'ls        one row per dead letter: when, route, detail-type, record, receives, last error',
    'redrive   journals them again for their own route only (--route to pick one) and removes them from the list; the next `run` delivers them (needs the data directory: stop `run` first)',
  ].join('\n'),
  flags: {
    'data-dir': {
      type: 'string',
      value: 'DIR',
      description: 'Data directory of the local runtime.',
      defaultHelp: DEFAULT_DATA_DIR,
    },
    route: {
      type: 'string',
      value: 'ID',
      description: 'Only the dead letters of this route (e.g. archive-isdoc).',
    },
    json: {
      type: 'boolean',
      description: 'ls: one JSON object per line (the whole dead letter, event included).',
    },
    wide: {
      type: 'boolean',
      description:
        'ls: every column whole (the time in full, receives, the whole error), however wide; without it the table fits 80 columns and keeps the route whole.',
    },
  },
  schema: z.object({
    'data-dir': z.string().min(1, { message: 'expected a directory path' }).default(DEFAULT_DATA_DIR),
    route: z.string().min(1, { message: 'expected a route id' }).optional(),
    json: z.boolean().default(false),
    wide: z.boolean().default(false),
    positionals: z.union([z.tuple([z.literal('ls')]), z.tuple([z.literal('redrive')])], {
      error: SUBCOMMANDS,
    }),
  }),
  async run(options, ctx) {
    const dataDir = resolve(ctx.cwd, options['data-dir']);
    if (!(await stat(dataDir).catch(() => undefined))?.isDirectory()) {
      throw new UsageError(`--data-dir: ${dataDir} is not a data directory (it does not exist)`, 'dlq');
    }
    const store = openFileDeadLetterStore(join(dataDir, BUS_DIR, DEAD_LETTERS_FILE));
    const wanted = (l: DeadLetter) => options.route === undefined || l.routeId === options.route;
    if (options.positionals[0] === 'ls') {
      // Read-only: the file is only appended to and replaced whole, so it can be read while `run` runs.
      listLetters((await store.list()).filter(wanted), options, ctx);
      return EXIT.ok;
    }
    return redrive(dataDir, store, wanted, ctx);
  },
});

function recordOf(letter: DeadLetter): string {
  const detail = (letter.event.detail ?? {}) as Record<string, unknown>;
  const record = detail.record as Record<string, unknown> | undefined;
  const number = typeof record?.DocumentNumber === 'string' ? `${record.DocumentNumber} ` : '';
  return `${number}${typeof detail.id === 'string' ? detail.id : letter.event.id}`;
}

/** `11-28 04:38:01`: when, to the second, in the 80-column table (UTC, as the ISO time of --wide). */
function shortTime(at: Date): string {
  return at.toISOString().slice(5, 19).replace('T', ' ');
}

function listLetters(
  letters: DeadLetter[],
  options: { json: boolean; wide: boolean },
  ctx: CommandContext,
): void {
  if (options.json) {
    for (const l of letters) ctx.stdout.write(`${JSON.stringify({ ...l, at: l.at.toISOString() })}\n`);
    return;
  }
  if (letters.length > 0 && options.wide) {
    ctx.stdout.write(
      formatTable(
        ['AT', 'ROUTE', 'DETAIL-TYPE', 'RECORD', 'RECEIVES', 'ERROR'],
        letters.map((l) => [
          l.at.toISOString(),
          l.routeId,
          l.event['detail-type'],
          recordOf(l),
          l.attempts,
          l.error,
        ]),
        { maxWidth: Number.POSITIVE_INFINITY },
      ),
    );
  } else if (letters.length > 0) {
    // 80 columns: the route whole (what --route takes), the error cut at its end, the rest in the middle.
    ctx.stdout.write(
      formatTable(
        ['AT (UTC)', 'ROUTE', 'DETAIL-TYPE', 'RECORD', 'ERROR'],
        letters.map((l) => [shortTime(l.at), l.routeId, l.event['detail-type'], recordOf(l), l.error]),
        { keepWhole: [0, 1], cutAtEnd: [4] },
      ),
    );
  }
  ctx.stdout.write(
    `${letters.length} dead letters${options.wide || letters.length === 0 ? '' : ' (--wide: every column whole)'}\n`,
  );
}

async function redrive(
  dataDir: string,
  store: ReturnType<typeof openFileDeadLetterStore>,
  wanted: (l: DeadLetter) => boolean,
  ctx: CommandContext,
): Promise<number> {
  const lock = await acquireDataDirLock(dataDir, 'dlq redrive');
  try {
    const journal = await openFileJournal(join(dataDir, BUS_DIR));
    let result: RedriveResult;
    try {
      result = await redriveDeadLetters(store, wanted, async (routeId, events) => {
        await journal.append(events, routeId);
      });
    } finally {
      await journal.close();
    }
    if (result.count === 0) {
      ctx.stdout.write('no dead letters to redrive\n');
      return EXIT.ok;
    }
    ctx.stdout.write(
      `${result.count} dead letters journaled again for ${result.routes.join(', ')}; the next \`run\` delivers them\n`,
    );
    return EXIT.ok;
  } finally {
    await lock.release();
  }
}
