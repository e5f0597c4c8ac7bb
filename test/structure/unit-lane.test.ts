/**
 * The fast lane is derived (test/unit-tests.ts), not listed by hand: a test file that calls nothing
 * starting a server or a child process is in it, one that does is not and says what it starts. A
 * lane file that starts one anyway fails in the lane (test/unit-lane-guard.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import unitConfig from '../../vitest.unit.config.js';
import { fastLaneFiles, starterOf, suiteTestFiles, unitTests } from '../unit-tests.js';

const scratch = mkdtempSync(join(tmpdir(), 'unit-lane-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(scratch, 'p-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the fast lane', () => {
  it('is what the fast-lane config runs, derived from the suite', () => {
    expect(unitConfig.test?.include).toEqual(unitTests);
    expect(unitTests).toEqual(fastLaneFiles());
    const suite = suiteTestFiles();
    expect(unitTests.every((f) => suite.includes(f))).toBe(true);
    expect(unitTests.length).toBeGreaterThan(50);
    // Every file out of the lane names what it starts.
    for (const file of suite.filter((f) => !unitTests.includes(f))) {
      expect(starterOf(readFileSync(file, 'utf8')), file).toBeDefined();
    }
  });

  it('an action folder test joins it with no edit; one with the sandbox bed stays out', () => {
    const root = project({
      'functions/core/actions/thanks/thanks.test.ts': "it('thanks', () => {});\n",
      'functions/core/actions/thanks/thanks-flow.test.ts':
        "const bed = useActionTestBed({});\nit('flows', () => {});\n",
      'test/local/run.test.ts': "import { execFile } from 'node:child_process';\n",
      'test/deployment/x.test.ts': 'const d = await deploy({});\n',
      'test/helper.ts': 'export const not = 1;\n',
    });
    expect(fastLaneFiles(root)).toEqual(['functions/core/actions/thanks/thanks.test.ts']);
  });

  it('keeps out what starts a server, a deployment or a child process, saying what', () => {
    expect(
      [
        'functions/core/actions/archive-isdoc/archive-isdoc.test.ts',
        'test/deployment/one-connection.test.ts',
        'test/architecture/new-action.test.ts',
        'test/infra/bundles.test.ts',
      ].map((f) => [f, starterOf(readFileSync(f, 'utf8'))]),
    ).toEqual([
      [
        'functions/core/actions/archive-isdoc/archive-isdoc.test.ts',
        'a test bed (the sandbox, dynalite, s3rver)',
      ],
      ['test/deployment/one-connection.test.ts', 'a deployment (Lambda workers)'],
      ['test/architecture/new-action.test.ts', 'a child process'],
      ['test/infra/bundles.test.ts', 'the bundler (esbuild, a child process)'],
    ]);
  });
});
