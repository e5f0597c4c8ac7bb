/**
 * The crash test of the local runtime (`npm run test:chaos`).
 *
 * The sandbox runs in this process with faults on and its activity generator going. `run` (the
 * build in dist/, as `npx accounting-events run` runs it without development tools) runs in a child
 * process against it with every action and `--events-out`, and is killed with SIGKILL at random
 * points — during the first backfill, during actions, during its own start — then restarted on the
 * same data directory. Then the generator stops and `run` goes on until the sandbox stops changing.
 *
 * The sandbox's ground truth is the oracle:
 *   lost               final versions of records the sandbox changed that are not in the events file
 *   duplicates         lines of the events file whose idempotencyKey was there already (allowed)
 *   duplicate effects  orders/slips transferred more than once, invoices archived more than once,
 *                      invoices sent for e-invoicing more than once
 * It exits 1 unless lost = 0, duplicate effects = 0, every issued invoice is archived and every
 * clean stop exited 0. `CHAOS_SEED` repeats the kill points, `CHAOS_KEEP=1` keeps the data directory
 * and `CHAOS_LOG=1` writes the runs' output into it (`child-stdout.log`, `child-stderr.log`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodePosition } from '#functions/adapters/local/bus-position.js';
import { loadPollerSettings } from '#functions/wiring/poller-config.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CRASHES = Number(process.env.CHAOS_CRASHES ?? 10);
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);

let rngState = SEED || 1;
function random(): number {
  // xorshift32: the kill points repeat for a given CHAOS_SEED.
  rngState ^= rngState << 13;
  rngState ^= rngState >>> 17;
  rngState ^= rngState << 5;
  return (rngState >>> 0) / 0x1_0000_0000;
}

interface Child {
  process: ChildProcess;
  lines: { at: number; update: Record<string, unknown> }[];
  exit: Promise<number | null>;
  stderr: string[];
}

function startRun(
  sandbox: Sandbox,
  dataDir: string,
  eventsFile: string,
  extra: string[],
  env: Record<string, string>,
): Child {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'dist', 'cli.js'),
      'run',
      '--no-sandbox',
      '--base-url',
      sandbox.baseUrl,
      '--data-dir',
      dataDir,
      '--events-out',
      eventsFile,
      '--interval',
      '300ms',
      '--json',
      ...extra,
    ],
    {
      cwd: dataDir,
      env: { ...process.env, ...env, ACCOUNTING_API_KEY: sandbox.credentials.apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: Child['lines'] = [];
  const stderr: string[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      try {
        lines.push({ at: Date.now(), update: JSON.parse(line) as Record<string, unknown> });
      } catch {
        // not an update line
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  if (process.env.CHAOS_LOG) {
    child.stdout?.on('data', (chunk: Buffer) => appendFileSync(join(dataDir, 'child-stdout.log'), chunk));
    child.stderr?.on('data', (chunk: Buffer) => appendFileSync(join(dataDir, 'child-stderr.log'), chunk));
  }
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { process: child, lines, exit, stderr };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(
  child: Child,
  probe: (u: Record<string, unknown>) => boolean,
  ms: number,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.lines.some((l) => probe(l.update))) return true;
    if (child.process.exitCode !== null) return false;
    await sleep(25);
  }
  return false;
}

/** What the child was doing when it was killed. */
function phaseOf(child: Child, first: boolean): string {
  const started = child.lines.some((l) => l.update.kind === 'started');
  if (!started) return 'starting';
  const backfill = child.lines.filter((l) => l.update.kind === 'backfill').at(-1)?.update;
  if (backfill && Number(backfill.done) < Number(backfill.total)) return 'backfill';
  // The first start counts the records first: its first poll is the backfill.
  if (first && !child.lines.some((l) => l.update.kind === 'poll')) return 'backfill';
  const recent = child.lines.filter((l) => Date.now() - l.at < 1500);
  const acting = recent.some((l) =>
    /\.(Transferred|IsdocArchived|EInvoiceSent)$/.test(String(l.update.detailType ?? '')),
  );
  return acting ? 'actions' : 'polling';
}

async function crashes(sandbox: Sandbox, dataDir: string, eventsFile: string, env: Record<string, string>) {
  const phases: string[] = [];
  for (let i = 0; i < CRASHES; i += 1) {
    const child = startRun(sandbox, dataDir, eventsFile, [], env);
    if (i % 5 === 4) {
      await sleep(100 + random() * 400); // during its own start: stores opening, journal read
    } else {
      await waitFor(child, (u) => u.kind === 'started', 30_000);
      // The first one during the first backfill; the others anywhere in the next 2.7 s.
      await sleep(i === 0 ? random() * 100 : 200 + random() * 2500);
    }
    if (child.process.exitCode !== null) {
      // It ended by itself: a start that failed (after the previous kill) is a finding.
      phases.push(`exited ${child.process.exitCode}`);
      process.stderr.write(child.stderr.join(''));
      continue;
    }
    phases.push(phaseOf(child, i === 0));
    child.process.kill('SIGKILL');
    await child.exit;
  }
  return phases;
}

const SETTLE_ROUNDS = 30;
const SETTLE_ROUND_DURATION = '20s';

/** Journaled events some subscriber has not handled yet (the bus journal's files in the data directory). */
async function backlog(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'bus');
  const positions = Object.values(
    JSON.parse(await readFile(join(dir, 'offsets.json'), 'utf8')) as Record<string, unknown>,
  ).map((v) => decodePosition(v) ?? { offset: 0 });
  let last = 0;
  for (const name of (await readdir(dir)).filter((n) => /^\d{12}\.jsonl$/.test(n))) {
    const lines = (await readFile(join(dir, name), 'utf8')).trim().split('\n').filter(Boolean);
    if (lines.length > 0) last = Math.max(last, (JSON.parse(lines.at(-1) as string) as { seq: number }).seq);
  }
  // Unhandled below what a subscriber was handed, plus everything after it.
  const waiting = positions.map((p) =>
    p.known === undefined
      ? Math.max(0, last - p.offset)
      : (p.unhandled?.length ?? 0) + Math.max(0, last - p.known),
  );
  return Math.max(0, ...waiting);
}

/** Dead letters kept in the data directory. */
async function deadLetters(dataDir: string): Promise<string[]> {
  const text = await readFile(join(dataDir, 'bus', 'dead-letters.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const d = JSON.parse(l) as { routeId: string; error: string };
      return `${d.routeId}: ${d.error}`;
    });
}

/**
 * Runs cleanly (`--duration`) until the sandbox did not change during a run and the journal holds
 * nothing unhandled (a record a killed run left in progress waits for its expiry); returns the exit codes.
 */
async function settle(sandbox: Sandbox, dataDir: string, eventsFile: string, env: Record<string, string>) {
  const codes: number[] = [];
  // Bounds that only end a broken run: on a busy machine a start takes several seconds of a round,
  // so rounds are longer and more of them are allowed (a quiet machine settles in two or three).
  for (let round = 0; round < SETTLE_ROUNDS; round += 1) {
    const before = sandbox.state.groundTruth({ includeSeed: false }).length;
    const child = startRun(sandbox, dataDir, eventsFile, ['--duration', SETTLE_ROUND_DURATION], env);
    const code = await child.exit;
    codes.push(code ?? -1);
    if (code !== 0) process.stderr.write(child.stderr.join(''));
    const changed = sandbox.state.groundTruth({ includeSeed: false }).length !== before;
    if (!changed && (await backlog(dataDir)) === 0) break;
  }
  return codes;
}

interface Line {
  'detail-type': string;
  detail: { id?: string; modifiedDate?: string; idempotencyKey?: string };
}

async function oracle(sandbox: Sandbox, dataDir: string, eventsFile: string) {
  const lines = (await readFile(eventsFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
  const seen = new Set<string>();
  const keys = new Set<string>();
  let duplicates = 0;
  for (const line of lines) {
    const { id, modifiedDate, idempotencyKey } = line.detail;
    if (id && modifiedDate) seen.add(`${id}@${Date.parse(modifiedDate)}`);
    if (line['detail-type'].endsWith('.Deleted') && id) seen.add(`${id}@deleted`);
    const key = idempotencyKey ?? `${line['detail-type']}:${JSON.stringify(line.detail)}`;
    if (keys.has(key)) duplicates += 1;
    keys.add(key);
  }
  const polled = new Set<string>(loadPollerSettings({}).collections);
  const final = new Map<string, { collection: string; change: string; modifiedDate: string }>();
  for (const v of sandbox.state.groundTruth({ includeSeed: true })) {
    if (polled.has(v.collection)) final.set(v.id, v);
  }
  let lost = 0;
  for (const [id, v] of final) {
    const key = v.change === 'deleted' ? `${id}@deleted` : `${id}@${Date.parse(v.modifiedDate)}`;
    if (seen.has(key)) continue;
    lost += 1;
    const versions = lines.filter((l) => l.detail.id === id).map((l) => l.detail.modifiedDate);
    process.stdout.write(
      `  lost: ${v.collection} ${id} ${v.change} ${v.modifiedDate}; in the file: ${versions.join(', ') || 'none'}\n`,
    );
  }
  const dead = await deadLetters(dataDir);
  for (const d of dead.slice(0, 10)) process.stdout.write(`  dead letter: ${d}\n`);
  return {
    events: lines.length,
    records: final.size,
    lost,
    duplicates,
    deadLetters: dead.length,
    backlog: await backlog(dataDir),
    ...(await effects(sandbox, dataDir)),
  };
}

/** Effects counted in the sandbox and the archive on disk. */
async function effects(sandbox: Sandbox, dataDir: string) {
  // Transfers: how many target documents carry items of each source item.
  const targetsPerSourceItem = new Map<string, Set<string>>();
  const links = { IssueSlips: 'ReceivedOrderItemId', IssuedInvoices: 'IssueSlipItemId' };
  for (const [collection, link] of Object.entries(links)) {
    const { items } = sandbox.state.list(collection, { pageSize: 1_000_000, pageNumber: 1 });
    for (const doc of items) {
      for (const item of (doc.Items as Record<string, unknown>[] | undefined) ?? []) {
        const source = item[link];
        if (typeof source !== 'string') continue;
        const set = targetsPerSourceItem.get(source) ?? new Set<string>();
        set.add(String(doc.Id));
        targetsPerSourceItem.set(source, set);
      }
    }
  }
  const duplicateTransfers = [...targetsPerSourceItem.values()].filter((s) => s.size > 1).length;
  // Archive: ISDOC objects per issued invoice (s3rver keeps one file per key).
  const isdocs = new Map<string, number>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      const match = /_([0-9a-f-]{36})\.isdoc\._S3rver_object$/.exec(entry.name);
      if (match) isdocs.set(match[1] as string, (isdocs.get(match[1] as string) ?? 0) + 1);
    }
  };
  await walk(join(dataDir, 's3', 'accounting-events-archive', 'isdoc'));
  const invoices = sandbox.state.list('IssuedInvoices', { pageSize: 1_000_000, pageNumber: 1 }).items;
  const notArchived = invoices.filter((i) => !isdocs.has(String(i.Id))).length;
  const duplicateArchives = invoices.filter((i) => (isdocs.get(String(i.Id)) ?? 0) > 1).length;
  // E-invoicing: sendings per document.
  const sendings = (await (await fetch(`${sandbox.baseUrl}/_sandbox/sendings`)).json()) as {
    sendings: { DocumentId: string }[];
  };
  const perDocument = new Map<string, number>();
  for (const s of sendings.sendings) perDocument.set(s.DocumentId, (perDocument.get(s.DocumentId) ?? 0) + 1);
  const duplicateSendings = [...perDocument.values()].filter((n) => n > 1).length;
  return {
    invoices: invoices.length,
    notArchived,
    sendings: sendings.sendings.length,
    duplicateEffects: duplicateTransfers + duplicateArchives + duplicateSendings,
    duplicateTransfers,
    duplicateArchives,
    duplicateSendings,
  };
}

async function main(): Promise<number> {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) return 1;
  const dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-chaos-'));
  const eventsFile = join(dataDir, 'events.jsonl');
  const sandbox = await startSandbox({
    seed: SEED,
    activity: {
      enabled: true,
      ratePerSecond: 3,
      weights: { createOrder: 0.5, editDocument: 0.3, issueInvoice: 0.2 },
    },
    eInvoicing: {
      stepMs: 300,
      transportFailureProbability: 0.05,
      responseWeights: { AP: 0.7, RE: 0.1, CA: 0.1, UQ: 0.1 },
      paidProbability: 0.3,
    },
    faults: {
      latency: { baseMs: 2, jitterMs: 20, distribution: 'uniform' },
      random5xxRate: 0.03,
      random429Rate: 0.02,
      retryAfterSeconds: 0,
      connectionResetRate: 0.01,
      editsWhilePaging: { rate: 0.2, count: 1 },
    },
  });
  const partners = sandbox.state
    .list('BusinessPartners', { pageSize: 10_000, pageNumber: 1 })
    .items.map((p) => p.IdentificationNumber)
    .filter((n): n is string => typeof n === 'string' && n !== '');
  const env = {
    ACTIONS_EINVOICE_PARTNERS: [...new Set(partners)].join(','),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const started = Date.now();
  try {
    const phases = await crashes(sandbox, dataDir, eventsFile, env);
    sandbox.server.activity.stop();
    // Edits while paging would change records on every poll: the end could never be caught up.
    sandbox.setFaults({ editsWhilePaging: { rate: 0, count: 1 } });
    const codes = await settle(sandbox, dataDir, eventsFile, env);
    const figures = await oracle(sandbox, dataDir, eventsFile);
    const byPhase: Record<string, number> = {};
    for (const p of phases) byPhase[p] = (byPhase[p] ?? 0) + 1;
    const ok =
      figures.lost === 0 &&
      figures.deadLetters === 0 &&
      figures.backlog === 0 &&
      figures.duplicateEffects === 0 &&
      figures.notArchived === 0 &&
      codes.every((c) => c === 0);
    process.stdout.write(
      [
        `chaos (seed ${SEED}, ${Math.round((Date.now() - started) / 1000)} s)`,
        `  crashes            ${phases.length} (${Object.entries(byPhase)
          .map(([p, n]) => `${p} ${n}`)
          .join(', ')})`,
        `  clean stops        ${codes.length}, exit codes ${codes.join(' ')}`,
        `  events             ${figures.events} lines for ${figures.records} records`,
        `  lost               ${figures.lost}`,
        `  duplicates         ${figures.duplicates} (delivered again after a crash, same idempotencyKey)`,
        `  duplicate effects  ${figures.duplicateEffects} (transfers ${figures.duplicateTransfers}, archives ${figures.duplicateArchives}, sendings ${figures.duplicateSendings})`,
        `  invoices           ${figures.invoices}, not archived ${figures.notArchived}, e-invoice sendings ${figures.sendings}`,
        `  dead letters       ${figures.deadLetters}, journal backlog ${figures.backlog}`,
        ok ? 'PASS' : 'FAIL',
        '',
      ].join('\n'),
    );
    return ok ? 0 : 1;
  } finally {
    await sandbox.close();
    if (process.env.CHAOS_KEEP !== '1') await rm(dataDir, { recursive: true, force: true });
    else process.stdout.write(`data kept in ${dataDir}\n`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
