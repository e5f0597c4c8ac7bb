import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import * as z from 'zod';
import { postSigned } from '#functions/adapters/http/webhook-sender.js';
import {
  DEFAULT_DELIVERY_POLICY,
  DeliveryTargetError,
  parseTargetSpec,
} from '#functions/core/delivery/delivery-targets.js';
import type { DetailType } from '#functions/core/event-catalog.js';
import { defineCommand, durationFlag } from '../command.js';
import { loadDotEnv } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { TERMINAL_COLUMNS } from '../format-table.js';
import { signingSecret } from '../http-delivery.js';
import { UsageError } from '../usage-error.js';
import { wrapText } from '../wrap-text.js';
import { DEFAULT_DATA_DIR, detailTypeFlag } from './shared-flags.js';

const SAMPLE_TYPE = 'IssuedInvoice.Created' satisfies DetailType;

export const deliveriesCommand = defineCommand({
  name: 'deliveries',
  positionalsHelp: 'test URL',
  summary: 'Send a signed sample event to an HTTP consumer, as run --deliver-to would.',
  description: [
    'test URL   POSTs one sample event (the catalog example of --type) signed per Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature (v1, HMAC-SHA256). Exit 0 on a 2xx.',
    "The secret: DELIVERY_SIGNING_SECRET, else the data directory's own (created on first use).",
  ].join('\n'),
  flags: {
    type: {
      type: 'string',
      value: 'DETAIL-TYPE',
      description: "The sample event's detail-type.",
      defaultHelp: SAMPLE_TYPE,
    },
    timeout: {
      type: 'string',
      value: 'DURATION',
      description: 'Deadline of the request.',
      defaultHelp: '10s',
    },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      description: 'Data directory holding the local signing secret.',
      defaultHelp: DEFAULT_DATA_DIR,
    },
  },
  schema: z.object({
    type: z.string().min(1).default(SAMPLE_TYPE),
    timeout: durationFlag(100, 120_000).default(DEFAULT_DELIVERY_POLICY.timeoutMs),
    'data-dir': z.string().min(1, { message: 'expected a directory path' }).default(DEFAULT_DATA_DIR),
    positionals: z.tuple([z.literal('test'), z.string()], { error: 'expected "test URL"' }),
  }),
  async run(o, ctx) {
    const [, url] = o.positionals;
    let target: ReturnType<typeof parseTargetSpec>;
    try {
      target = parseTargetSpec(url, 0);
    } catch (error) {
      if (error instanceof DeliveryTargetError)
        throw new UsageError(`argument: ${error.message}`, 'deliveries');
      throw error;
    }
    const type = await detailTypeFlag(o.type, 'deliveries');
    const { catalogEntry } = await import('#functions/core/event-catalog.js');
    const entry = catalogEntry(type);
    loadDotEnv(ctx.env, ctx.cwd);
    const dataDir = resolve(ctx.cwd, o['data-dir']);
    if (!ctx.env.DELIVERY_SIGNING_SECRET) await mkdir(dataDir, { recursive: true });
    const { secret, source } = await signingSecret(ctx.env, dataDir, target.url);
    const now = new Date();
    const event = {
      version: '0',
      id: randomUUID(),
      'detail-type': entry.detailType,
      source: 'accounting.sandbox',
      account: '000000000000',
      time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: 'local',
      resources: [],
      detail: entry.example,
    };
    const started = Date.now();
    const result = await postSigned({
      url: target.url,
      id: event.id,
      body: JSON.stringify(event),
      secret,
      timeoutMs: o.timeout,
      now,
      signal: ctx.signal,
    });
    const took = Date.now() - started;
    const said = result.ok
      ? `HTTP ${result.status}`
      : result.status !== undefined
        ? `HTTP ${result.status}`
        : result.error;
    ctx.stdout.write(
      `${wrapText(`POST ${target.label} ${entry.detailType} webhook-id ${event.id}: ${said} in ${took} ms\nsigned with the secret in ${source}`, TERMINAL_COLUMNS, 2)}\n`,
    );
    return result.ok ? EXIT.ok : EXIT.failure;
  },
});
