import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import * as z from 'zod';
import { type IntakeSource, intakeSources } from '#functions/core/intake/shop-order.js';
import { INTAKE_ENV } from '#functions/shared/intake-env-names.js';
import { type CommandContext, defineCommand } from '../command.js';
import { loadDotEnv } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { TERMINAL_COLUMNS } from '../format-table.js';
import { sampleOrder } from '../intake-samples.js';
import { postSignedOrder } from '../intake-send.js';
import { registerIntakeWebhooks, sendShoptetOrder } from '../shoptet-send.js';
import { UsageError } from '../usage-error.js';
import { wrapText } from '../wrap-text.js';

export const DEFAULT_INTAKE_URL = 'http://127.0.0.1:4020';

const SECRET_VARIABLE: Record<IntakeSource, string> = {
  shopify: INTAKE_ENV.shopifySecret,
  woocommerce: INTAKE_ENV.woocommerceSecret,
  generic: INTAKE_ENV.genericSecret,
  shoptet: INTAKE_ENV.shoptetSignatureKey,
};

export const intakeCommand = defineCommand({
  name: 'intake',
  positionalsHelp: 'send',
  summary: 'Simulate a shop: sign and post order webhooks to a running intake (`run --intake-port`).',
  description: [
    "send   posts --count orders in the platform's own webhook JSON (Shopify orders/create, WooCommerce order.created, or the generic schema), signed with INTAKE_<SOURCE>_SECRET from the environment or ./.env. With --file, posts that body --count times, each a new delivery of the same order (the intake creates it once).",
    'Prints one line per delivery: status, source, delivery id, milliseconds. Exit 1 if any was refused.',
  ].join('\n'),
  flags: {
    source: {
      type: 'string',
      value: 'SOURCE',
      description: 'shopify, woocommerce, generic or shoptet (through the Shoptet twin, --shop).',
    },
    shop: {
      type: 'string',
      value: 'URL',
      description: 'shoptet: the Shoptet twin (`sandbox --shoptet-port N`); default INTAKE_SHOPTET_API_URL.',
    },
    country: { type: 'string', value: 'cz|sk', description: 'shoptet: a Czech (CZK) or Slovak (EUR) shop.' },
    lines: { type: 'string', value: 'N', description: 'shoptet: lines per order, 1-300 (default random).' },
    file: {
      type: 'string',
      value: 'FILE',
      description: 'A JSON order body to send instead of generated ones.',
    },
    count: {
      type: 'string',
      value: 'N',
      description: 'How many orders (or deliveries of --file).',
      defaultHelp: '1',
    },
    url: {
      type: 'string',
      value: 'URL',
      description: 'Base URL of the intake.',
      defaultHelp: DEFAULT_INTAKE_URL,
    },
    json: { type: 'boolean', description: 'One JSON object per delivery.' },
  },
  schema: z.object({
    source: z.enum(intakeSources, { error: 'expected shopify, woocommerce, generic or shoptet' }),
    file: z.string().min(1, { message: 'expected a file path' }).optional(),
    count: z.coerce
      .number({ error: 'expected a whole number 1-1000' })
      .int({ error: 'expected a whole number 1-1000' })
      .min(1, { error: 'expected a whole number 1-1000' })
      .max(1000, { error: 'expected a whole number 1-1000' })
      .default(1),
    url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).default(DEFAULT_INTAKE_URL),
    json: z.boolean().default(false),
    shop: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
    country: z.enum(['cz', 'sk'], { error: 'expected cz or sk' }).optional(),
    lines: z.coerce
      .number({ error: 'expected a whole number 1-300' })
      .int({ error: 'expected a whole number 1-300' })
      .min(1, { error: 'expected a whole number 1-300' })
      .max(300, { error: 'expected a whole number 1-300' })
      .optional(),
    positionals: z.tuple([z.literal('send')], { error: 'expected "send"' }),
  }),
  async run(options, ctx) {
    loadDotEnv(ctx.env, ctx.cwd);
    if (options.source === 'shoptet') return playShoptet(options, ctx);
    const variable = SECRET_VARIABLE[options.source];
    const secret = ctx.env[variable];
    if (!secret)
      throw new UsageError(`${variable}: required to sign ${options.source} orders, not set`, 'intake');
    let fileBody: string | undefined;
    if (options.file) {
      try {
        fileBody = await readFile(resolve(ctx.cwd, options.file), 'utf8');
        JSON.parse(fileBody);
      } catch (error) {
        throw new UsageError(`--file: expected a readable JSON file (${(error as Error).name})`, 'intake', {
          cause: error,
        });
      }
    }
    // Distinct orders per run: numbered from the clock.
    const base = Math.floor(Date.now() / 1000) % 1_000_000;
    let refused = 0;
    for (let i = 0; i < options.count && !ctx.signal.aborted; i += 1) {
      const body = fileBody ?? JSON.stringify(sampleOrder(options.source, base * 10 + i));
      const sent = await postSignedOrder({
        baseUrl: options.url,
        source: options.source,
        secret,
        body,
      }).catch((error: unknown) => {
        if (ctx.signal.aborted) throw error;
        ctx.stderr.write(`error: ${unreachable(options.url, error)}\n`);
        return undefined;
      });
      if (!sent) return EXIT.failure;
      if (sent.status >= 300) refused += 1;
      const line = options.json
        ? JSON.stringify({
            status: sent.status,
            source: options.source,
            deliveryId: sent.deliveryId,
            ms: Math.round(sent.ms),
            body: sent.body,
          })
        : // 80 columns: the intake's answer wraps under the line, indented.
          wrapText(
            `${sent.status} ${options.source} delivery ${sent.deliveryId} ${sent.ms.toFixed(0)} ms ${sent.body}`,
            TERMINAL_COLUMNS,
            4,
          );
      ctx.stdout.write(`${line}\n`);
    }
    return refused > 0 ? EXIT.failure : EXIT.ok;
  },
});

/** Plays a Shoptet shop through the twin: its notifications are signed with the twin's key. */
async function playShoptet(
  options: {
    url: string;
    count: number;
    json: boolean;
    shop?: string;
    country?: 'cz' | 'sk';
    lines?: number;
  },
  ctx: CommandContext,
): Promise<number> {
  const shop = options.shop ?? ctx.env[INTAKE_ENV.shoptetApiUrl];
  const token = ctx.env[INTAKE_ENV.shoptetToken];
  if (!shop)
    throw new UsageError(
      `--shop: the Shoptet twin's URL is required (or ${INTAKE_ENV.shoptetApiUrl})`,
      'intake',
    );
  if (!token)
    throw new UsageError(`${INTAKE_ENV.shoptetToken}: required to register the webhooks, not set`, 'intake');
  const intakeUrl = `${options.url.replace(/\/+$/, '')}/intake/shoptet`;
  try {
    await registerIntakeWebhooks(shop, token, intakeUrl);
  } catch (error) {
    ctx.stderr.write(`error: cannot register the intake at the shop ${shop}: ${(error as Error).message}\n`);
    return EXIT.failure;
  }
  const base = Math.floor(Date.now() / 1000) % 1_000_000;
  let refused = 0;
  for (let i = 0; i < options.count && !ctx.signal.aborted; i += 1) {
    const sent = await sendShoptetOrder(shop, {
      seed: base * 10 + i,
      ...(options.country ? { country: options.country } : {}),
      ...(options.lines ? { lines: options.lines } : {}),
    }).catch((error: unknown) => {
      ctx.stderr.write(`error: ${(error as Error).message}\n`);
      return undefined;
    });
    if (!sent) return EXIT.failure;
    if (sent.status < 200 || sent.status >= 300) refused += 1;
    const line = options.json
      ? JSON.stringify({ source: 'shoptet', ...sent, ms: Math.round(sent.ms) })
      : `${sent.status} shoptet order ${sent.code} ${sent.lines} items ${sent.total} ${sent.currency} ${sent.ms.toFixed(0)} ms`;
    ctx.stdout.write(`${line}\n`);
  }
  return refused > 0 ? EXIT.failure : EXIT.ok;
}

/** Why no intake answered at `url`, and what to do: `run --intake-port 0` prints the port it took. */
function unreachable(url: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? code : error instanceof Error ? error.name : 'no answer';
  return `cannot reach the intake at ${url} (${reason}): start 'run --intake-port N', or pass --url with the address it printed`;
}
