/**
 * Measures the sandbox: seed time and RSS for a seeded size, and list pages served per second
 * by one sandbox process (the load comes from this process, the sandbox runs in a child).
 *
 *   npx tsx sandbox/bench-lists.ts --documents 100000 --seconds 10 --concurrency 8 --page-size 100
 *   npx tsx sandbox/bench-lists.ts --documents 200000 --seed-only
 *   npx tsx sandbox/bench-lists.ts --documents 100000 --in-process --seconds 5
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import * as z from 'zod';
import { startSandbox } from './index.js';

const argsSchema = z.object({
  documents: z.coerce.number().int().min(0).default(100_000),
  partners: z.coerce.number().int().min(1).default(2000),
  seconds: z.coerce.number().positive().max(120).default(10),
  concurrency: z.coerce.number().int().min(1).max(256).default(8),
  'page-size': z.coerce.number().int().min(1).default(100),
  collection: z.string().default('IssuedInvoices'),
  'seed-only': z.boolean().default(false),
  'in-process': z.boolean().default(false),
  serve: z.boolean().default(false),
});

/** Server-side cost only: list + JSON serialisation in a loop, no HTTP. */
async function inProcess(
  documents: number,
  partners: number,
  pageSize: number,
  seconds: number,
  collection: string,
) {
  const sandbox = await startSandbox({
    sizes: { documents, partners, perCollection: {} },
    maxPageSize: pageSize,
  });
  let after: string | undefined;
  let pages = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    const result = sandbox.state.list(collection, { pageSize, pageNumber: 1, ...(after ? { after } : {}) });
    JSON.stringify({ Items: result.items, TotalItemCount: result.total });
    after = result.items.length === pageSize ? result.items[pageSize - 1]?.Id : undefined;
    pages++;
  }
  const elapsed = (performance.now() - t0) / 1000;
  process.stdout.write(
    `in-process ${collection} pages of ${pageSize} at ${documents} documents: ${(pages / elapsed).toFixed(0)} pages/s (list + JSON, no HTTP)\n`,
  );
  await sandbox.close();
}

async function serve(documents: number, partners: number, pageSize: number): Promise<void> {
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const sandbox = await startSandbox({
    sizes: { documents, partners, perCollection: {} },
    maxPageSize: pageSize,
  });
  const seedMs = performance.now() - t0;
  globalThis.gc?.();
  const rss = process.memoryUsage().rss;
  process.stdout.write(
    `${JSON.stringify({ baseUrl: sandbox.baseUrl, seedMs: Math.round(seedMs), rssMb: Math.round(rss / 1048576), rssBeforeMb: Math.round(before / 1048576) })}\n`,
  );
  process.stdin.resume();
  process.stdin.on('end', () => void sandbox.close().then(() => process.exit(0)));
}

type Args = z.output<typeof argsSchema>;
type ChildInfo = { baseUrl: string; seedMs: number; rssMb: number; rssBeforeMb: number };

/** Starts the sandbox in a child process (`--serve`) and waits for its first line of figures. */
async function startChild(args: Args) {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--serve',
      '--documents',
      String(args.documents),
      '--partners',
      String(args.partners),
      '--page-size',
      String(args['page-size']),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const info = await new Promise<ChildInfo>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { child, info };
}

/** `concurrency` workers listing pages over HTTP until the time is up. */
async function load(args: Args, baseUrl: string, agent: Agent) {
  const headers = { 'api-key': 'sandbox-api-key' };
  const deadline = performance.now() + args.seconds * 1000;
  const totals = { pages: 0, records: 0, errors: 0 };
  const worker = async (w: number) => {
    let after: string | undefined;
    // Each worker walks the collection by keyset from a different point, restarting at the end.
    let since = w % 2 === 0 ? undefined : '2025-06-01T00:00:00Z';
    while (performance.now() < deadline) {
      const q = new URLSearchParams({ PageSize: String(args['page-size']), PageNumber: '1' });
      if (after) q.set('After', after);
      if (since) q.set('ModifiedSince', since);
      const res = await request(`${baseUrl}/v1/${args.collection}?${q}`, { headers, dispatcher: agent });
      const body = (await res.body.json()) as { Items?: { Id: string }[] };
      if (res.statusCode !== 200 || !body.Items) {
        totals.errors++;
        continue;
      }
      totals.pages++;
      totals.records += body.Items.length;
      after = body.Items.length < args['page-size'] ? undefined : body.Items[body.Items.length - 1]?.Id;
      if (!after) since = since ? undefined : '2025-06-01T00:00:00Z';
    }
  };
  await Promise.all(Array.from({ length: args.concurrency }, (_, i) => worker(i)));
  return totals;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      documents: { type: 'string' },
      partners: { type: 'string' },
      seconds: { type: 'string' },
      concurrency: { type: 'string' },
      'page-size': { type: 'string' },
      collection: { type: 'string' },
      'seed-only': { type: 'boolean' },
      'in-process': { type: 'boolean' },
      serve: { type: 'boolean' },
    },
  });
  const args = argsSchema.parse(values);
  if (args.serve) return serve(args.documents, args.partners, args['page-size']);
  if (args['in-process']) {
    return inProcess(args.documents, args.partners, args['page-size'], args.seconds, args.collection);
  }
  const { child, info } = await startChild(args);
  process.stdout.write(
    `documents ${args.documents}: seeded in ${info.seedMs} ms, RSS after seeding ${info.rssMb} MB (before starting the sandbox ${info.rssBeforeMb} MB)\n`,
  );
  if (args['seed-only']) {
    child.stdin.end();
    return;
  }
  const agent = new Agent({ connections: args.concurrency, pipelining: 1 });
  const t0 = performance.now();
  const { pages, records, errors } = await load(args, info.baseUrl, agent);
  const elapsed = (performance.now() - t0) / 1000;
  const memory = (await (await request(`${info.baseUrl}/_sandbox`, { dispatcher: agent })).body.json()) as {
    memory?: { rssMb: number };
  };
  process.stdout.write(
    `${args.collection} pages of ${args['page-size']}: ${pages} pages (${records} records) in ${elapsed.toFixed(1)} s → ${(pages / elapsed).toFixed(0)} pages/s, ${(records / elapsed).toFixed(0)} records/s, ${errors} errors, concurrency ${args.concurrency}, sandbox RSS after load ${memory.memory?.rssMb ?? '?'} MB\n`,
  );
  await agent.close();
  child.stdin.end();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
