/**
 * `npm run proof:payments [-- --duration 120s --rate 2 --interval 2s --variant sk]` — the payments
 * proof by hand (`payments-run.ts`): a `run` whose sandbox pays invoices for the duration, then every
 * Paid, PartiallyPaid and Overdue event compared with the sandbox's ground truth. Prints the figures
 * as JSON; exits 1 when anything was missed or wrong.
 */
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { runPaymentsProof } from './payments-run.js';

const durationSchema = z
  .string()
  .regex(/^\d+(ms|s|m)$/, 'expected a duration such as 500ms, 20s or 2m')
  .transform((text) => {
    const n = Number.parseInt(text, 10);
    return text.endsWith('ms') ? n : text.endsWith('m') ? n * 60_000 : n * 1000;
  });
const flagsSchema = z.object({
  duration: z.string().default('120s').pipe(durationSchema),
  interval: z.string().default('2s').pipe(durationSchema),
  rate: z.coerce.number({ error: 'expected actions per second' }).positive().max(100).default(2),
  variant: z.enum(['sk', 'cz']).default('sk'),
});

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    interval: { type: 'string' },
    rate: { type: 'string' },
    variant: { type: 'string' },
  },
  strict: true,
});
const parsed = flagsSchema.safeParse(values);
if (!parsed.success) {
  process.stderr.write(
    `proof:payments: ${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')}\n`,
  );
  process.exit(2);
}
const flags = parsed.data;
const result = await runPaymentsProof({
  spanMs: flags.duration,
  ratePerSecond: flags.rate,
  intervalMs: flags.interval,
  variant: flags.variant,
  waitMs: 300_000,
  log: (line) => process.stderr.write(`[proof ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
});
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(result.missed === 0 && result.wrong === 0 ? 0 : 1);
