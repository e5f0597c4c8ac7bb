/**
 * `npm run test:deployment:mutations`: applies each template defect of ./defects.ts, one at a
 * time, runs the test file that must catch it (stopping at its first failure), and reports per
 * defect whether it was caught — the file failed, within the time limit, with output naming the
 * defect's resource and property — or missed (each output in reports/deployment-mutations/).
 * Exits 1 on any miss.
 *
 *   npm run test:deployment:mutations                # every defect, two at a time
 *   npm run test:deployment:mutations -- id1 id2     # those defects
 *   DEPLOYMENT_MUTATION_JOBS=1 npm run …              # one at a time
 *   DEPLOYMENT_MUTATION_LIMIT_S=300 npm run …         # a longer limit per defect (a loaded machine)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { BUNDLE_CACHE_ENV } from '#scripts/bundle-function.mjs';
import { MUTATION_ENV } from './apply.js';
import { DEFECTS, type Defect } from './defects.js';

/** A defect must be caught within this (2 min; `DEPLOYMENT_MUTATION_LIMIT_S` on a machine under load). */
const LIMIT_MS = 1000 * Number(process.env.DEPLOYMENT_MUTATION_LIMIT_S ?? 120);
/** Where the defects' syntheses keep their bundles (reused while their sources are unchanged). */
const BUNDLE_CACHE = 'node_modules/.cache/accounting-events-bundles/deployment';
/** Each defect's test output, for a miss's post-mortem. */
const REPORTS = 'reports/deployment-mutations';
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes in vitest's output
const ANSI = /\u001b\[[0-9;]*m/g;

interface Outcome {
  readonly defect: Defect;
  readonly caught: boolean;
  readonly seconds: number;
  readonly why: string;
}

function runOne(defect: Defect): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', defect.file, '--bail=1'],
      {
        env: {
          ...process.env,
          [MUTATION_ENV]: defect.id,
          FORCE_COLOR: '0',
          // The bundles of an unchanged project are built once and reused by every defect's synthesis.
          [BUNDLE_CACHE_ENV]: process.env[BUNDLE_CACHE_ENV] ?? BUNDLE_CACHE,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, LIMIT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      const text = output.replace(ANSI, '');
      mkdirSync(REPORTS, { recursive: true });
      writeFileSync(`${REPORTS}/${defect.id}.log`, text);
      const [resource, property] = defect.names;
      const named = text.includes(resource) && text.includes(property);
      const slow = seconds > 120 ? ` (over 2 min: ${seconds.toFixed(0)} s)` : '';
      const why = timedOut
        ? `no verdict within ${LIMIT_MS / 1000} s`
        : code === 0
          ? 'the tests passed'
          : !text.includes(`mutation ${defect.id} applied`)
            ? 'the file failed before the defect was applied'
            : named
              ? `failed, naming it${slow}`
              : `failed without naming ${resource} and ${property}`;
      resolve({
        defect,
        caught: !timedOut && code !== 0 && named && text.includes(`mutation ${defect.id} applied`),
        seconds,
        why,
      });
    });
  });
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const defects = wanted.length > 0 ? DEFECTS.filter((d) => wanted.includes(d.id)) : [...DEFECTS];
  if (wanted.length > 0 && defects.length !== wanted.length)
    throw new Error(`unknown defect among ${wanted.join(', ')}`);
  const jobs = Number(process.env.DEPLOYMENT_MUTATION_JOBS ?? 2);
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.info(`${defects.length} defects, ${jobs} at a time; load average ${load()}`);
  const started = performance.now();
  const queue = [...defects];
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let d = queue.shift(); d; d = queue.shift()) {
        const o = await runOne(d);
        outcomes.push(o);
        console.info(
          `${o.caught ? 'caught' : 'MISSED'}  ${d.id.padEnd(34)} ${d.category.padEnd(9)} ${o.seconds.toFixed(0).padStart(4)} s  ${o.why}`,
        );
      }
    }),
  );
  const missed = outcomes.filter((o) => !o.caught);
  const minutes = (performance.now() - started) / 60_000;
  console.info(
    `\n${outcomes.length - missed.length} caught, ${missed.length} missed, in ${minutes.toFixed(1)} min (load average at the end ${load()})`,
  );
  for (const o of missed) console.info(`missed: ${o.defect.id} (${o.defect.description}): ${o.why}`);
  process.exitCode = missed.length > 0 ? 1 : 0;
}

await main();
