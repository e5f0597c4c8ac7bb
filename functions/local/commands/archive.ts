import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as z from 'zod';
import { type ArchiveReader, NoArchiveError, openArchiveReader } from '../archive-reader.js';
import { type CommandContext, defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { LOCAL_RESOURCES } from '../local-stores.js';
import { UsageError } from '../usage-error.js';
import { DEFAULT_DATA_DIR } from './shared-flags.js';

const SUBCOMMANDS = 'expected "ls" or "get KEY"';

export const archiveCommand = defineCommand({
  name: 'archive',
  positionalsHelp: 'ls | get KEY',
  summary: 'List the local S3 archive (ISDOC files, claim checks), or get one object out of it.',
  description: [
    'ls        one row per object: key, size, last modified (--prefix to narrow)',
    "get KEY   the object's bytes to stdout, or to --out FILE",
    'Reads the archive through the S3 API of its own embedded server: works while `run` runs.',
  ].join('\n'),
  flags: {
    'data-dir': {
      type: 'string',
      value: 'DIR',
      description: 'Data directory of the local runtime.',
      defaultHelp: DEFAULT_DATA_DIR,
    },
    prefix: {
      type: 'string',
      value: 'PREFIX',
      description: 'ls: only keys starting with PREFIX (e.g. isdoc/).',
    },
    out: { type: 'string', value: 'FILE', description: 'get: write the object to FILE instead of stdout.' },
    json: { type: 'boolean', description: 'ls: one JSON object per line: key, size, lastModified.' },
    wide: { type: 'boolean', description: 'ls: whole keys, however wide (cut in the middle to 80 columns).' },
  },
  schema: z
    .object({
      'data-dir': z.string().min(1, { message: 'expected a directory path' }).default(DEFAULT_DATA_DIR),
      prefix: z.string().default(''),
      out: z.string().min(1, { message: 'expected a file path' }).optional(),
      json: z.boolean().default(false),
      wide: z.boolean().default(false),
      positionals: z.union(
        [
          z.tuple([z.literal('ls')]),
          z.tuple([z.literal('get'), z.string().min(1, { message: 'expected a KEY' })]),
        ],
        { error: SUBCOMMANDS },
      ),
    })
    .refine((o) => o.positionals[0] === 'get' || o.out === undefined, {
      path: ['out'],
      message: 'only with get',
    }),
  async run(options, ctx) {
    let reader: ArchiveReader;
    try {
      reader = await openArchiveReader(resolve(ctx.cwd, options['data-dir']));
    } catch (error) {
      if (error instanceof NoArchiveError) throw new UsageError(`--data-dir: ${error.message}`, 'archive');
      throw error;
    }
    try {
      const [sub, key] = options.positionals;
      if (sub === 'get') return await getObject(reader, key as string, options.out, ctx);
      return await listObjects(reader, options, ctx);
    } finally {
      await reader.close();
    }
  },
});

async function getObject(
  reader: ArchiveReader,
  key: string,
  out: string | undefined,
  ctx: CommandContext,
): Promise<number> {
  let body: Readable | undefined = reader.exists ? await reader.archive.get(key) : undefined;
  if (!body && reader.exists && key.includes(CUT)) {
    // A key as `archive ls` shows it, cut in the middle: the one object it stands for.
    const found = await keysMatchingCut(reader, key);
    if (found.length > 1) {
      ctx.stderr.write(
        `error: "${key}" stands for ${found.length} objects; copy the whole key from 'archive ls --wide'\n`,
      );
      return EXIT.usage;
    }
    if (found[0] !== undefined) {
      key = found[0];
      body = await reader.archive.get(key);
    }
  }
  if (!body) {
    ctx.stderr.write(`error: no object "${key}" in the archive (list them with 'archive ls')\n`);
    return EXIT.failure;
  }
  if (out !== undefined) {
    const path = resolve(ctx.cwd, out);
    await pipeline(body, createWriteStream(path));
    ctx.stderr.write(`wrote ${key} to ${path}\n`);
    return EXIT.ok;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  try {
    ctx.stdout.write(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
  } catch {
    ctx.stderr.write(`error: "${key}" is not text; write it to a file with --out FILE\n`);
    return EXIT.failure;
  }
  return EXIT.ok;
}

/** What `archive ls` puts where it cuts a key (`truncateMiddle`). */
const CUT = '…';

/** The keys a middle-cut key can stand for: those with its head and its tail. */
async function keysMatchingCut(reader: ArchiveReader, cut: string): Promise<string[]> {
  const at = cut.indexOf(CUT);
  const head = cut.slice(0, at);
  const tail = cut.slice(at + CUT.length);
  const found: string[] = [];
  for await (const info of reader.archive.list(head)) {
    if (info.key.endsWith(tail) && info.key.length >= head.length + tail.length) found.push(info.key);
    if (found.length > 1) break;
  }
  return found;
}

async function listObjects(
  reader: ArchiveReader,
  options: { prefix: string; json: boolean; wide: boolean },
  ctx: CommandContext,
): Promise<number> {
  const rows: { key: string; size: number; lastModified?: string }[] = [];
  if (reader.exists) {
    for await (const info of reader.archive.list(options.prefix)) {
      const row = {
        key: info.key,
        size: info.size,
        ...(info.lastModified ? { lastModified: info.lastModified.toISOString() } : {}),
      };
      if (options.json) ctx.stdout.write(`${JSON.stringify(row)}\n`);
      else rows.push(row);
    }
  }
  if (!options.json) {
    if (rows.length > 0) {
      ctx.stdout.write(
        formatTable(
          ['KEY', 'SIZE', 'LAST MODIFIED'],
          rows.map((r) => [r.key, r.size, r.lastModified ?? '']),
          options.wide ? { maxWidth: Number.POSITIVE_INFINITY } : {},
        ),
      );
    }
    ctx.stdout.write(`${rows.length} objects in s3://${LOCAL_RESOURCES.archiveBucket}/${options.prefix}\n`);
  }
  return EXIT.ok;
}
