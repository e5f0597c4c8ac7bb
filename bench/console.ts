/**
 * `npm run bench:console` — does an open console slow the pipeline? The same backfill (the
 * sandbox's seeded documents, every action on, activity off) runs with and without the console,
 * alternately, each on a fresh data directory: "open" means the console's feed listens to the bus
 * and a headless Chromium (Debian's) has the page open on the live event list, fed by its stream.
 * Events per second = events published (records and action outcomes) / time from the first poll
 * until the bus is drained. Prints the figures and writes `bench/results/console.json`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { createConsoleFeed } from '../functions/local/console/console-feed.js';
import { openConsole } from '../functions/local/console/open-console.js';
import { startRuntime } from '../functions/local/runtime.js';
import { startSandbox } from '../sandbox/index.js';
import { round } from './stats.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: flags } = parseArgs({
  options: { rounds: { type: 'string' }, documents: { type: 'string' } },
  strict: true,
});
const ROUNDS = Number(flags.rounds ?? 3);
const DOCUMENTS = Number(flags.documents ?? 1500);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const log = (line: string) => process.stderr.write(`[bench console] ${line}\n`);

async function once(withConsole: boolean): Promise<{ events: number; seconds: number; perSecond: number }> {
  const sandbox = await startSandbox({
    sizes: { documents: DOCUMENTS, partners: 100, perCollection: {} },
    activity: { enabled: false },
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-bench-console-'));
  const feed = createConsoleFeed();
  const runtime = await startRuntime({
    sandbox: { instance: sandbox },
    env: {},
    dataDir,
    intervalMs: 60_000,
    actions: true,
    backfillProgress: false,
    logger: quiet,
    onUpdate: withConsole ? feed.onUpdate : undefined,
  });
  const served = withConsole ? await openConsole(runtime, feed, { port: 0, logger: quiet }) : undefined;
  const browser = served
    ? await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox', '--headless', '--disable-gpu'],
      })
    : undefined;
  try {
    if (browser && served) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(served.url);
      await page.waitForFunction("document.getElementById('live')?.textContent === 'live'");
    }
    const started = performance.now();
    for (;;) {
      const summary = await runtime.pollOnce();
      if (!summary.more) break;
    }
    await runtime.drain();
    const seconds = (performance.now() - started) / 1000;
    const events = runtime.bus.publishedCount();
    return { events, seconds: round(seconds, 2), perSecond: round(events / seconds, 1) };
  } finally {
    await browser?.close();
    await served?.close();
    await runtime.stop();
    await sandbox.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const runs: { console: boolean; events: number; seconds: number; perSecond: number }[] = [];
await once(false); // warm-up: module loading and the first libxml2 instantiation
for (let i = 0; i < ROUNDS; i += 1) {
  for (const withConsole of i % 2 === 0 ? [false, true] : [true, false]) {
    const r = await once(withConsole);
    runs.push({ console: withConsole, ...r });
    log(
      `${withConsole ? 'console open' : 'no console  '}: ${r.events} events in ${r.seconds} s = ${r.perSecond}/s`,
    );
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const without = median(runs.filter((r) => !r.console).map((r) => r.perSecond));
const withOpen = median(runs.filter((r) => r.console).map((r) => r.perSecond));
const result = {
  measuredAt: new Date().toISOString(),
  documents: DOCUMENTS,
  rounds: ROUNDS,
  eventsPerSecond: { withoutConsole: round(without, 1), withConsoleOpen: round(withOpen, 1) },
  changePercent: round(((withOpen - without) / without) * 100, 1),
  runs,
};
await mkdir(join(root, 'bench', 'results'), { recursive: true });
await writeFile(join(root, 'bench', 'results', 'console.json'), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `events per second (median of ${ROUNDS}): without console ${result.eventsPerSecond.withoutConsole}, with the console open ${result.eventsPerSecond.withConsoleOpen} (${result.changePercent} %)\n`,
);
