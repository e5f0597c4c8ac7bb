/**
 * Every command (`npx …`, `npm …`) the code blocks of README.md and docs/local.md show, run as
 * written in an 80×24 environment without a terminal (`COLUMNS=80 LINES=24`, output piped), in a
 * project directory of the test's own (its `.local`, its files), in the order of the docs:
 * (a) it exits as the docs say (0, or 130 after Ctrl-C for a command that runs until stopped);
 * (b) no line of its output is wider than 80 display columns;
 * (c) what the docs say it prints (a `# prints:` comment, an example in the text) is there, with
 *     what differs between runs (ports, tokens, ids, counts) masked;
 * (d) a command that runs until stopped is run until that line appears, then stopped with SIGINT
 *     to its process group, as Ctrl-C does.
 * A command that cannot run here is listed in SKIPPED with the reason, so a new command in the docs
 * fails this test until it is run here or listed.
 *
 * As written, except: `npx accounting-events` runs the package's `bin` (what npx resolves it to;
 * npx itself would link the package into the npm cache for every directory), and the fixed ports
 * of the examples (the consumer at `localhost:5678`, the intake at `4020`) are free ports of
 * 127.0.0.1 (tests take no fixed port).
 */

import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleOrder } from '#functions/local/intake-samples.js';
import {
  type Child,
  commandCoverage,
  docCommands,
  freePort,
  mask,
  outputBlocks,
  projectDir,
  ROOT,
  start,
  tooWide,
  unwrap,
} from './docs-run-support.js';

const FILES = ['README.md', 'docs/local.md'] as const;
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const commands = FILES.flatMap((file) => docCommands(file, text(file)));

const REAL_SERVICE = 'needs the real service: the .env above it names its URL and credentials';
const BENCH = 'the benchmark: minutes on 2 cores, and it writes bench/results/';
/** What cannot run here, and why. */
const SKIPPED: Record<string, string> = {
  'npm ci': 'installs the dependencies of a checkout (what this test runs in is one)',
  'npm test': 'the whole test suite (this test among it), not a command of the CLI',
  'npx cdk bootstrap': 'needs an AWS account',
  'npx cdk deploy --all -c stage=trial':
    'needs an AWS account (test/deployment runs the synthesized bundles)',
  'npx accounting-events sync --once --dry-run --no-sandbox': REAL_SERVICE,
  'npx accounting-events run --no-sandbox': REAL_SERVICE,
  'npx accounting-events run --no-sandbox --no-actions': REAL_SERVICE,
  'npx accounting-events backfill --no-sandbox --since 2026-01-01 --actions': REAL_SERVICE,
  'npm run bench': BENCH,
  'npm run bench:quick': BENCH,
  'npm run bench:charts': 'rewrites the committed charts in bench/results/ (not a command of the CLI)',
  'npm run bench -- --only connections': BENCH,
  'npm run bench -- --only idle': BENCH,
  'npm run synth': 'cdk synth of the AWS stacks, not a command of the CLI (test/infra synthesizes them)',
  'npm run test:unit': 'a lane of the test suite, not a command of the CLI',
  'npm run test:mutation': 'mutation testing: long, not a command of the CLI',
  'npm run lint': 'biome over the repository, not a command of the CLI (CI runs it)',
  'npm run typecheck': 'tsc over the repository, not a command of the CLI (CI runs it)',
  'npm run test:chaos': 'kills `run` ten times under faults (~2 min); its own proof, run by CI',
  'npm run proof:payments': 'runs for 120 s by design; its own proof',
  'npm run test:deployment': 'the deployment test (part of npm test)',
  'npm run test:deployment:mutations':
    'template defects against the deployment test: long, not a command of the CLI',
  'npm run build': 'rebuilds dist/ of the checkout (npm ci runs it)',
  'npm run events:schema':
    'rewrites events/schemas/ and docs/events.md of the checkout (events:check guards them)',
  'npm run connections:schema': 'rewrites docs/connections.schema.json of the checkout',
};

/** What the test runs, in the order of the docs. */
const RUN = {
  start: 'npm start',
  deliveriesTest: 'npx accounting-events deliveries test http://localhost:5678/webhook/accounting',
  deliverTo:
    "npx accounting-events run --deliver-to 'http://localhost:5678/webhook/accounting,IssuedInvoice.*|ReceivedOrder.Created'",
  intakeRun: 'npx accounting-events run --intake-port 4020',
  intakeShopify: 'npx accounting-events intake send --source shopify --count 3 --url http://127.0.0.1:4020',
  intakeWoo:
    'npx accounting-events intake send --source woocommerce --file order.json --count 3 --url http://127.0.0.1:4020',
} as const;

let project: string;
let consumer: Server;
let consumerPort: number;
const received: IncomingMessage[] = [];
const outputs = new Map<string, Child>();

/** The command line as run: the package's bin for `npx accounting-events`, the test's ports. */
function asRun(command: string, ports: { intake?: number } = {}): string {
  return command
    .replace(/^npx accounting-events\b/, `node ${join(ROOT, 'bin', 'accounting-events.js')}`)
    .replaceAll('localhost:5678', `127.0.0.1:${consumerPort}`)
    .replaceAll('127.0.0.1:4020', `127.0.0.1:${ports.intake ?? 4020}`)
    .replaceAll('--intake-port 4020', `--intake-port ${ports.intake ?? 4020}`);
}

/** The docs' comment after `# prints:`, masked. */
function printed(command: string): string | undefined {
  const comment = commands.find((c) => c.command === command)?.comment ?? '';
  const said = /prints: (.*)$/.exec(comment)?.[1];
  return said === undefined ? undefined : mask(said);
}

async function runToEnd(key: string, command: string, env: Record<string, string> = {}) {
  const child = start(command, project, env);
  outputs.set(key, child);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

beforeAll(async () => {
  project = await projectDir();
  consumer = createServer((req, res) => {
    received.push(req);
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((done) => consumer.listen(0, '127.0.0.1', done));
  consumerPort = (consumer.address() as { port: number }).port;
});

afterAll(async () => {
  // Whatever a failed test left running (a finished one is not signalled again).
  for (const child of outputs.values()) await child.interrupt();
  if (project) await rm(project, { recursive: true, force: true });
  // The sender's keep-alive connection would hold close() open.
  consumer?.closeAllConnections();
  await new Promise((done) => consumer?.close(done));
});

describe('the commands of README.md and docs/local.md, run as written at 80×24', () => {
  it('finds every command and runs or lists each', () => {
    const known = new Set<string>([...Object.values(RUN), ...Object.keys(SKIPPED)]);
    const { unknown, gone } = commandCoverage(commands, known);
    expect(unknown, 'a command of the docs neither run nor listed in SKIPPED').toEqual([]);
    expect(gone, 'listed here, gone from the docs').toEqual([]);
  });

  it('the output examples of the docs fit 80 columns', () => {
    const wide = FILES.flatMap((file) =>
      outputBlocks(file, text(file)).flatMap((b) =>
        tooWide(b.lines.join('\n')).map((l) => `${b.where}: ${l}`),
      ),
    );
    expect(wide).toEqual([]);
  });

  it('npm start: runs until Ctrl-C, prints the console URL with its token, stops cleanly with 130', {
    timeout: 120_000,
  }, async () => {
    const child = start(RUN.start, project, {});
    outputs.set('start', child);
    // README: "prints its URL with a token made for this run (`console: http://127.0.0.1:40649/?token=…`".
    await child.waitFor(/console: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/);
    expect(mask(unwrap(child.stdout()))).toContain(mask('console: http://127.0.0.1:40649/?token=…'));
    expect(unwrap(child.stdout())).toMatch(/started: service http:\/\/127\.0\.0\.1:\d+ \(sandbox\)/);
    expect(await child.interrupt()).toBe(130);
    expect(child.stderr()).toContain('SIGINT: stopping cleanly');
    expect(child.stdout()).toMatch(/stopped: \d+ events published/);
    expect(tooWide(child.stdout() + child.stderr())).toEqual([]);
  });

  it('deliveries test: one signed sample to the consumer, exit 0', { timeout: 60_000 }, async () => {
    const run = await runToEnd('deliveriesTest', asRun(RUN.deliveriesTest));
    expect(run.code, run.stderr).toBe(0);
    expect(received).toHaveLength(1);
    expect(received[0]?.headers['webhook-signature']).toMatch(/^v1,/);
    // docs/local.md: a target shows as scheme and host only.
    expect(mask(unwrap(run.stdout))).toContain(
      mask(`POST http://127.0.0.1:${consumerPort}/… IssuedInvoice.Created`),
    );
    expect(run.stdout).not.toContain('/webhook/accounting');
    expect(tooWide(run.stdout + run.stderr)).toEqual([]);
  });

  it('run --deliver-to: names the target by scheme and host, stops with 130', {
    timeout: 120_000,
  }, async () => {
    const child = start(asRun(RUN.deliverTo), project, {});
    outputs.set('deliverTo', child);
    await child.waitFor(/started: /);
    await child.waitFor(new RegExp(`http://127\\.0\\.0\\.1:${consumerPort}/…`));
    expect(await child.interrupt()).toBe(130);
    expect(child.stdout() + child.stderr()).not.toContain('/webhook/accounting');
    expect(tooWide(child.stdout() + child.stderr())).toEqual([]);
  });

  it('the intake flow: run --intake-port prints its address, intake send posts, Ctrl-C stops', {
    timeout: 180_000,
  }, async () => {
    const env = {
      INTAKE_SHOPIFY_SECRET: 'docs-run-shopify-secret',
      INTAKE_WOOCOMMERCE_SECRET: 'docs-run-woo-secret',
    };
    const intake = await freePort();
    await writeFile(join(project, 'order.json'), JSON.stringify(sampleOrder('woocommerce', 4380280)));
    const child = start(asRun(RUN.intakeRun, { intake }), project, env);
    outputs.set('intakeRun', child);
    const said = printed(RUN.intakeRun);
    expect(said).toBe(mask('intake POST http://127.0.0.1:4020/intake/<source> (shopify, woocommerce)'));
    await child.waitFor(/intake POST http:\/\/127\.0\.0\.1:\d+\/intake\/<source> \(shopify, woocommerce\)/);
    expect(mask(unwrap(child.stdout()))).toContain(said);
    for (const key of ['intakeShopify', 'intakeWoo'] as const) {
      const run = await runToEnd(key, asRun(RUN[key], { intake }), env);
      expect(run.code, `${RUN[key]}\n${run.stdout}${run.stderr}`).toBe(0);
      // One line per delivery (docs/local.md), each accepted.
      const lines = run.stdout
        .trimEnd()
        .split('\n')
        .filter((l) => /^\d{3} /.test(l));
      expect(lines.map((l) => l.slice(0, 3))).toEqual(['202', '202', '202']);
      expect(tooWide(run.stdout + run.stderr)).toEqual([]);
    }
    await child.waitFor(/EshopOrder\.Imported/);
    expect(await child.interrupt()).toBe(130);
    expect(tooWide(child.stdout() + child.stderr())).toEqual([]);
  });
});
