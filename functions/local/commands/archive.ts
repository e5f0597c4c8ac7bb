import * as z from 'zod';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../format-table.js';
import { LOCAL_RESOURCES, startLocalStores } from '../local-stores.js';
import { DEFAULT_DATA_DIR } from './shared-flags.js';

export const archiveCommand = defineCommand({
  name: 'archive',
  positionalsHelp: 'ls',
  summary: 'List the objects in the local S3 archive (ISDOC files, claim checks).',
  flags: {
    'data-dir': {
      type: 'string',
      value: 'DIR',
      description: 'Data directory of the local runtime.',
      defaultHelp: DEFAULT_DATA_DIR,
    },
    prefix: { type: 'string', value: 'PREFIX', description: 'Only keys starting with PREFIX (e.g. isdoc/).' },
    json: { type: 'boolean', description: 'One JSON object per line: key, size, lastModified.' },
  },
  schema: z.object({
    'data-dir': z.string().min(1, { message: 'expected a directory path' }).default(DEFAULT_DATA_DIR),
    prefix: z.string().default(''),
    json: z.boolean().default(false),
    positionals: z.tuple([z.literal('ls', { message: 'expected the subcommand "ls"' })], {
      message: 'expected the subcommand "ls"',
    }),
  }),
  async run(options, ctx) {
    const { resolve } = await import('node:path');
    const stores = await startLocalStores(resolve(ctx.cwd, options['data-dir']), 'archive ls');
    try {
      const rows: { key: string; size: number; lastModified?: string }[] = [];
      for await (const info of stores.archive.list(options.prefix)) {
        const row = {
          key: info.key,
          size: info.size,
          ...(info.lastModified ? { lastModified: info.lastModified.toISOString() } : {}),
        };
        if (options.json) ctx.stdout.write(`${JSON.stringify(row)}\n`);
        else rows.push(row);
      }
      if (!options.json) {
        if (rows.length > 0) {
          ctx.stdout.write(
            formatTable(
              ['KEY', 'SIZE', 'LAST MODIFIED'],
              rows.map((r) => [r.key, r.size, r.lastModified ?? '']),
            ),
          );
        }
        ctx.stdout.write(
          `${rows.length} objects in s3://${LOCAL_RESOURCES.archiveBucket}/${options.prefix}\n`,
        );
      }
      return EXIT.ok;
    } finally {
      await stores.close();
    }
  },
});
