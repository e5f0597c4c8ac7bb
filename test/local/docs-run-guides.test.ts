/**
 * Every command (`npx …`, `npm …`) the code blocks of docs/console.md, docs/connections.md,
 * docs/deploy.md and docs/intake.md show, run as written in an 80×24 environment without a
 * terminal, as `docs-run.test.ts` runs those of README.md and docs/local.md (a file of its own so
 * that vitest runs both at once):
 * (a) it exits 0;
 * (b) no line of its output is wider than 80 display columns (JSON for a file apart);
 * (c) what the docs show it printing (a `$ command` transcript) is there, whitespace and what
 *     differs between runs (ports, counts, the project's path) masked.
 * What needs an AWS account is listed in SKIPPED with the reason; the settings (`-c name=value`)
 * of every `cdk` command shown are settings of the deployment, accepted by its loader.
 * A doc whose code blocks show no command (console.md, intake.md) is still read, so a command added
 * there fails this test until it is run here or listed.
 *
 * As written, except: `npx accounting-events` runs the package's `bin`, and the service the
 * connection is added with (`https://api.example.sk`) is a sandbox of the test's own, as the
 * transcript of `connections test` says.
 */

import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInfraConfig } from '#infra/config/load.js';
import { INFRA_CONFIG_KEYS } from '#infra/config/schema.js';
import {
  type Child,
  commandCoverage,
  docCommands,
  mask,
  outputBlocks,
  projectDir,
  ROOT,
  start,
  tooWide,
} from './docs-run-support.js';

const FILES = ['docs/console.md', 'docs/connections.md', 'docs/deploy.md', 'docs/intake.md'] as const;
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const commands = FILES.flatMap((file) => docCommands(file, text(file)));

const ACCOUNT = 'needs an AWS account (test/deployment runs the synthesized bundles)';
/** What cannot run here, and why. */
const SKIPPED: Record<string, string> = {
  'npm run synth':
    'cdk synth of both stacks: minutes of bundling, which test/infra and test/deployment already do within npm test',
  'npx cdk bootstrap': ACCOUNT,
  'npx cdk deploy --all -c stage=trial': ACCOUNT,
  'npx cdk deploy --all -c stage=dev -c removalPolicy=DESTROY -c scheduleRateMinutes=5': ACCOUNT,
  'npx cdk destroy --all': ACCOUNT,
  'npx accounting-events connections add --table <ConnectionsTableName> --region eu-central-1 --name acme --base-url https://api.example.sk --seal-credentials credentials.json --sealing-keys /accounting-events-prod/sealing-keys':
    'needs an AWS account: the registry table and the sealing keys in SSM Parameter Store (test/local/connections-seal.test.ts runs it against dynalite with SSM stubbed)',
};

/** What the test runs, in the order of docs/connections.md. */
const RUN = {
  add: 'npx accounting-events connections add --name acme --base-url https://api.example.sk --credentials-secret env:ACME_CREDENTIALS --collections IssuedInvoices,ReceivedOrders',
  list: 'npx accounting-events connections list',
  test: 'npx accounting-events connections test acme',
  pause: 'npx accounting-events connections pause acme',
  resume: 'npx accounting-events connections resume acme',
  remove: 'npx accounting-events connections remove acme',
  schema: 'npx accounting-events connections schema',
} as const;

/** The sandbox's demo key (docs/connections.md names it). */
const ENV = { ACME_CREDENTIALS: '{"apiKey":"sandbox-api-key"}' };

let project: string;
let sandbox: Child | undefined;
let sandboxUrl: string;
const children: Child[] = [];

const asRun = (command: string) =>
  command
    .replace(/^npx accounting-events\b/, `node ${join(ROOT, 'bin', 'accounting-events.js')}`)
    .replace('https://api.example.sk', sandboxUrl);

/** The output a `$ command` block of the doc shows for `command`. */
function transcript(file: string, command: string): string | undefined {
  const blocks = text(file).split(/^```\n/m);
  return blocks.find((b) => b.startsWith(`$ ${command}\n`))?.slice(command.length + 3);
}

/** Masked, whitespace collapsed: what a reader compares. */
const squash = (s: string) => mask(s).replace(/\s+/g, ' ').trim();

/** `json`: output for a program or a file (a JSON Schema), where 80 columns do not apply. */
async function runToEnd(command: string, shown = command, output: 'lines' | 'json' = 'lines') {
  const child = start(command, project, ENV);
  children.push(child);
  const code = await child.exited;
  const out = child.stdout();
  expect(code, `${shown}\n${out}${child.stderr()}`).toBe(0);
  expect(tooWide(output === 'json' ? child.stderr() : out + child.stderr()), shown).toEqual([]);
  return out;
}

beforeAll(async () => {
  project = await projectDir();
  sandbox = start(`node ${join(ROOT, 'bin', 'accounting-events.js')} sandbox --port 0`, project, {});
  await sandbox.waitFor(/base URL:\s+http:\/\/127\.0\.0\.1:\d+/);
  sandboxUrl = /base URL:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(sandbox.stdout())?.[1] as string;
}, 60_000);

afterAll(async () => {
  for (const child of children) await child.interrupt();
  await sandbox?.interrupt();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the commands of docs/console.md, connections.md, deploy.md and intake.md, run as written at 80×24', () => {
  it('finds every command and runs or lists each', () => {
    const known = new Set<string>([...Object.values(RUN), ...Object.keys(SKIPPED)]);
    const { unknown, gone } = commandCoverage(commands, known);
    expect(unknown, 'a command of the docs neither run nor listed in SKIPPED').toEqual([]);
    expect(gone, 'listed here, gone from the docs').toEqual([]);
  });

  it('the transcripts of the docs (`$ command` blocks) fit 80 columns', () => {
    const transcripts = FILES.flatMap((file) =>
      outputBlocks(file, text(file)).filter((b) => b.lines[0]?.startsWith('$ ')),
    );
    expect(transcripts.length).toBeGreaterThan(1);
    const wide = transcripts.flatMap((b) => tooWide(b.lines.join('\n')).map((l) => `${b.where}: ${l}`));
    expect(wide).toEqual([]);
  });

  it('the settings of every cdk command are settings of the deployment, accepted by its loader', () => {
    const cdk = commands.filter((c) => c.command.startsWith('npx cdk '));
    expect(cdk.length).toBeGreaterThan(2);
    for (const c of cdk) {
      const settings = Object.fromEntries(
        [...c.command.matchAll(/-c (\w+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]),
      );
      const unknown = Object.keys(settings).filter((k) => !(INFRA_CONFIG_KEYS as string[]).includes(k));
      expect(unknown, `${c.where}: ${c.command}`).toEqual([]);
      // The service's base URL is exported above the commands, as the docs say.
      const env = { ACCOUNTING_EVENTS_ACCOUNTING_BASE_URL: 'https://api.example.sk' };
      expect(() => loadInfraConfig({ context: (key) => settings[key], env }), c.where).not.toThrow();
    }
  });

  it("console.md's URL is the line run prints (as docs-run.test.ts proves of README's)", () => {
    const example = /^console: \S+$/m.exec(text('docs/console.md'))?.[0] ?? '';
    expect(mask(example)).toBe(mask('console: http://127.0.0.1:40649/?token=…'));
  });

  it('the connections command: add, list, test, pause, resume, remove, schema, each exit 0 within 80 columns', {
    timeout: 180_000,
  }, async () => {
    const added = await runToEnd(asRun(RUN.add), RUN.add);
    expect(added).toContain("added connection 'acme'");

    // The list shows the base URL the docs added it with, and the file in the reader's project.
    const listed = (await runToEnd(asRun(RUN.list), RUN.list))
      .replaceAll(sandboxUrl, 'https://api.example.sk')
      .replaceAll(project, '/home/you/shop');
    const shownList = transcript('docs/connections.md', RUN.list);
    expect(shownList, 'docs/connections.md shows what list prints').toBeDefined();
    expect(squash(listed)).toBe(squash(shownList ?? ''));

    const tested = await runToEnd(asRun(RUN.test), RUN.test);
    const shownTest = transcript('docs/connections.md', RUN.test);
    expect(shownTest, 'docs/connections.md shows what test prints').toBeDefined();
    expect(squash(tested)).toBe(squash(shownTest ?? ''));

    expect(await runToEnd(asRun(RUN.pause), RUN.pause)).toContain("connection 'acme' is paused");
    expect(await runToEnd(asRun(RUN.resume), RUN.resume)).toContain("connection 'acme' is active");
    expect(await runToEnd(asRun(RUN.remove), RUN.remove)).toContain("removed connection 'acme'");

    // The comment says: the JSON Schema of the file.
    const schema = await runToEnd(asRun(RUN.schema), RUN.schema, 'json');
    expect(JSON.parse(schema)).toEqual(JSON.parse(text('docs/connections.schema.json')));
  });
});
