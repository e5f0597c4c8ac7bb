/**
 * The test files of the fast lane (vitest.unit.config.ts), derived, never listed by hand: every test
 * file of the full suite (vitest.config.ts: `test/**`, `functions/**`) whose text calls none of the
 * `STARTERS`, the functions that start the sandbox, an embedded AWS server (dynalite, s3rver), the
 * local runtime, a deployment, the bundler or a child process. They run in one module graph per
 * worker. test/unit-lane-guard.ts makes a lane file that starts one anyway fail there (name the
 * helper it calls here); test/structure/unit-lane.test.ts checks the derivation. An action folder's
 * tests join the lane with no edit. A test's own in-process fake responder (test/fakes/) may listen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The full suite's folders (vitest.config.ts `include`). */
export const SUITE_FOLDERS = ['test', 'functions'] as const;

/** Calls that start what the fast lane refuses, by what they start. */
export const STARTERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(startSandbox(Client)?|harness|startShoptetTwin|runSandboxCli)\(/, 'the sandbox'],
  [/\buse(ActionTestBed|IntakeBed)\(/, 'a test bed (the sandbox, dynalite, s3rver)'],
  [/\bstart(TestServers|LocalStores)\(/, 'dynalite and s3rver'],
  [
    /\b(start(Runtime|Intake|ShoptetIntake|IntakeHttpServer|LocalActions|ConsoleServer)|runToEnd)\(/,
    'the local runtime',
  ],
  [/\b(run)?[cC]li\(/, 'the CLI (a child process)'],
  [/\b(deploy|createLambdaHost)\(/, 'a deployment (Lambda workers)'],
  [/\b(measureConnections|runPaymentsProof)\(/, 'a bench run (child processes)'],
  [/\bbundle:\s*true\b/, 'the bundler (esbuild, a child process)'],
  [/from 'node:child_process'/, 'a child process'],
];

/** What the file's text starts, or `undefined` for a fast-lane file. */
export function starterOf(text: string): string | undefined {
  return STARTERS.find(([pattern]) => pattern.test(text))?.[1];
}

/** Every test file of the full suite, relative to the project, sorted. */
export function suiteTestFiles(root = ROOT): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(path);
      return e.name.endsWith('.test.ts') ? [path] : [];
    });
  return SUITE_FOLDERS.flatMap((f) => walk(f)).sort();
}

/** The fast lane: the suite's test files that start nothing (`starterOf`). */
export function fastLaneFiles(root = ROOT): string[] {
  return suiteTestFiles(root).filter((f) => starterOf(readFileSync(join(root, f), 'utf8')) === undefined);
}

export const unitTests = fastLaneFiles();
