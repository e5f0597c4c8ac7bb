/**
 * The local runtime with many connections: `run --companies N` polls each sandbox company as its
 * own connection, and `run --connections FILE` the registry's — each its own loop, client,
 * checkpoints, event source and health. A connection whose credentials are refused or missing
 * yields one `Connection.Unhealthy` and the others keep publishing; fixing it yields
 * `Connection.Recovered`; a removed or paused entry stops at its next cycle.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileConnectionRegistry } from '#functions/adapters/local/file-connection-registry.js';
import type { EventBridgeEvent } from '#functions/adapters/local/local-bus.js';
import { parseConnectionEntry } from '#functions/core/connections/connection-entry.js';
import { checkpointKey } from '#functions/core/sync/checkpoint-state.js';
import type { RuntimeUpdate } from '#functions/local/live-view.js';
import { type Runtime, startRuntime } from '#functions/local/runtime.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { cli } from './cli-harness.js';

// Bounds that only end a broken test: a busy machine takes several times as long as a quiet one.
const BOUND_MS = 150_000;
const TEST_TIMEOUT_MS = 400_000;
const WRONG_KEY = 'wrong-key-7f3a9c1e5b';

async function waitFor(
  what: string,
  probe: () => boolean | Promise<boolean>,
  state: () => unknown = () => undefined,
): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; state: ${JSON.stringify(state())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const connectionOf = (e: EventBridgeEvent) => (e.detail as { connection?: string }).connection;

describe('run --companies N', () => {
  let sandbox: Sandbox;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'accounting-events-companies-'));
    sandbox = await startSandbox({ companies: 3, sizes: { documents: 24, partners: 4, perCollection: {} } });
  });
  afterAll(async () => {
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(
    'publishes events from every company, each naming its own connection, with checkpoints of its own',
    async () => {
      const eventsOut = join(dataDir, 'events.jsonl');
      const updates: RuntimeUpdate[] = [];
      const runtime = await startRuntime({
        sandbox: { instance: sandbox },
        companies: 3,
        env: {},
        dataDir,
        intervalMs: 300,
        actions: true,
        eventsOut,
        onUpdate: (u) => updates.push(u),
      });
      expect(runtime.connections()).toEqual(['sandbox-1', 'sandbox-2', 'sandbox-3']);
      const done = runtime.run();
      const seen = () => new Set(runtime.bus.events().map(connectionOf));
      const companies = ['sandbox-1', 'sandbox-2', 'sandbox-3'];
      // A poll is a time-boxed slice: how many collections the first one reaches depends on the
      // machine's speed, so the test waits until every company has published and has saved its
      // IssuedInvoices checkpoint, then stops (below, the checkpoints are read again from disk).
      await waitFor('events and an IssuedInvoices checkpoint of all three', async () => {
        const polled = (c: string) => updates.some((u) => u.kind === 'poll' && u.connection === c);
        if (!companies.every((c) => seen().has(c) && polled(c))) return false;
        for (const c of companies)
          if ((await runtime.stores.checkpoints.get(checkpointKey(c, 'IssuedInvoices'))) === undefined)
            return false;
        return true;
      });
      await runtime.stop();
      await done;
      const lines = (await readFile(eventsOut, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as EventBridgeEvent);
      const per = new Map<string, number>();
      for (const e of lines) {
        const connection = connectionOf(e) as string;
        expect(e.source).toBe(`accounting.${connection}`);
        per.set(connection, (per.get(connection) ?? 0) + 1);
      }
      expect([...per.keys()].sort()).toEqual(['sandbox-1', 'sandbox-2', 'sandbox-3']);
      // Each company's records are its own: no record id is published by two connections.
      const owners = new Map<string, string>();
      for (const e of lines) {
        const id = (e.detail as { id: string }).id;
        const owner = connectionOf(e) as string;
        expect(owners.get(id) ?? owner).toBe(owner);
        owners.set(id, owner);
      }
      const { stores } = await reopen(dataDir);
      try {
        for (const c of ['sandbox-1', 'sandbox-2', 'sandbox-3'])
          expect(await stores.checkpoints.get(checkpointKey(c, 'IssuedInvoices'))).toBeDefined();
      } finally {
        await stores.close();
      }
      expect(updates.some((u) => u.kind === 'poll' && u.connection === 'sandbox-2')).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
});

async function reopen(dataDir: string) {
  const { startLocalStores } = await import('#functions/local/local-stores.js');
  return { stores: await startLocalStores(dataDir) };
}

describe('run --connections FILE', () => {
  let sandbox: Sandbox;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'accounting-events-registry-'));
    sandbox = await startSandbox({ companies: 4, sizes: { documents: 24, partners: 4, perCollection: {} } });
  });
  afterAll(async () => {
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Each connection reads its own variable, `<NAME>_CREDENTIALS`. */
  const entry = (name: string) =>
    parseConnectionEntry({
      name,
      variant: 'sk',
      baseUrl: sandbox.baseUrl,
      authUrl: sandbox.authUrl,
      credentialsSecret: `env:${name.toUpperCase()}_CREDENTIALS`,
      collections: ['IssuedInvoices', 'ReceivedOrders', 'BusinessPartners'],
    });

  it(
    'one refused and one missing secret: one Connection.Unhealthy each, the others publish; fixed, removed and paused entries act at the next cycle',
    async () => {
      const path = join(dir, 'connections.json');
      const registry = createFileConnectionRegistry({ path });
      await registry.add(entry('acme'));
      await registry.add(entry('beta'));
      await registry.add(entry('refused'));
      await registry.add(entry('missing'));
      const key = (k: number) => JSON.stringify({ apiKey: sandbox.credentialsOf(k).apiKey });
      const env: Record<string, string> = {
        ACME_CREDENTIALS: key(1),
        BETA_CREDENTIALS: key(2),
        REFUSED_CREDENTIALS: JSON.stringify({ apiKey: WRONG_KEY }),
      };
      const updates: RuntimeUpdate[] = [];
      const runtime: Runtime = await startRuntime({
        sandbox: false,
        connectionsFile: path,
        env,
        dataDir: join(dir, 'data'),
        intervalMs: 250,
        intervalFromFlag: true,
        actions: false,
        onUpdate: (u) => updates.push(u),
      });
      const controller = new AbortController();
      const done = runtime.run({ signal: controller.signal });
      try {
        const events = () => runtime.bus.events();
        const of = (connection: string, type?: string) =>
          events().filter((e) => connectionOf(e) === connection && (!type || e['detail-type'] === type));
        const polls = (connection: string) =>
          updates.filter((u) => u.kind === 'poll' && u.connection === connection).length;
        await waitFor(
          'acme and beta publishing, refused and missing unhealthy',
          () =>
            of('acme').length > 0 &&
            of('beta').length > 0 &&
            of('refused', 'Connection.Unhealthy').length > 0 &&
            of('missing', 'Connection.Unhealthy').length > 0,
        );
        // Several cycles later, still exactly one Unhealthy each, and the others go on polling.
        const acmePolls = polls('acme');
        await waitFor('three more polls of acme', () => polls('acme') >= acmePolls + 3);
        expect(of('refused', 'Connection.Unhealthy')).toHaveLength(1);
        expect(of('missing', 'Connection.Unhealthy')).toHaveLength(1);
        expect(of('refused', 'Connection.Unhealthy')[0]?.detail).toMatchObject({ reason: 'authentication' });
        expect(of('missing', 'Connection.Unhealthy')[0]?.detail).toMatchObject({ reason: 'credentials' });
        expect(of('refused').filter((e) => !e['detail-type'].startsWith('Connection.'))).toEqual([]);

        // Fixed: the refused connection's entry now names good credentials.
        env.REFUSED_CREDENTIALS = key(3);
        await registry.remove('refused');
        await registry.add(entry('refused'));
        await waitFor(
          'refused recovered and publishing',
          () =>
            of('refused', 'Connection.Recovered').length === 1 &&
            // Publishing: any record of its own (a first backfill reaches invoices late on a busy machine).
            of('refused').some((e) => !e['detail-type'].startsWith('Connection.')),
          // What the connection did, should it not recover: its events and its updates.
          () => ({
            events: of('refused').map((e) => e['detail-type']),
            updates: updates.filter((u) => 'connection' in u && u.connection === 'refused').slice(-20),
            warnings: updates.filter((u) => u.kind === 'warning').slice(-20),
          }),
        );

        // Removed and paused: no poll after their next cycle; acme's checkpoints are untouched by it.
        await registry.remove('beta');
        await registry.setPaused('missing', true);
        await waitFor(
          'beta removed, missing paused',
          () =>
            updates.some(
              (u) => u.kind === 'connection' && u.connection === 'beta' && u.state === 'removed',
            ) &&
            updates.some(
              (u) => u.kind === 'connection' && u.connection === 'missing' && u.state === 'paused',
            ),
        );
        const checkpoint = (c: string) => runtime.stores.checkpoints.get(checkpointKey(c, 'IssuedInvoices'));
        const betaPolls = polls('beta');
        const betaCheckpoint = (await checkpoint('beta'))?.version;
        const acmeNow = polls('acme');
        await waitFor('more polls of acme', () => polls('acme') >= acmeNow + 3);
        expect(polls('beta')).toBeLessThanOrEqual(betaPolls + 1); // at most the one in flight
        expect((await checkpoint('beta'))?.version).toBeLessThanOrEqual((betaCheckpoint ?? 0) + 1);
        expect(await checkpoint('acme')).toBeDefined();
      } finally {
        controller.abort();
        await done;
      }
      // Nothing carries a secret: not the refused key, in no event and no update.
      const text = JSON.stringify(runtime.bus.events()) + JSON.stringify(updates);
      expect(text).not.toContain(WRONG_KEY);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('the run command with many connections', () => {
  it(
    'run --companies 3 --events-out F --duration: events of all three, each naming its own connection; exit 0',
    async () => {
      const cwd = await mkdtemp(join(tmpdir(), 'accounting-events-companies-cli-'));
      try {
        const run = () =>
          cli(
            [
              'run',
              '--companies',
              '3',
              '--events-out',
              'events.jsonl',
              '--duration',
              '4s',
              '--interval',
              '500ms',
              '--json',
            ],
            { cwd, env: { SANDBOX_DOCUMENTS: '24', SANDBOX_PARTNERS: '4' } },
          );
        const read = async () =>
          (await readFile(join(cwd, 'events.jsonl'), 'utf8').catch(() => ''))
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l) as EventBridgeEvent);
        // What 4 s of a run reach depends on the machine's speed: on a busy one a company may not
        // have published yet when the duration ends. The run is started again (from its data
        // directory, appending to the same file) until all three have published; every run ends
        // at its --duration with exit code 0.
        const all = ['sandbox-1', 'sandbox-2', 'sandbox-3'];
        const result = await run();
        expect(result.code).toBe(0);
        for (let again = 0; again < 8; again++) {
          const seen = new Set((await read()).map(connectionOf));
          if (all.every((c) => seen.has(c))) break;
          expect((await run()).code).toBe(0);
        }
        const events = await read();
        const connections = new Set(events.map(connectionOf));
        expect([...connections].sort()).toEqual(all);
        for (const e of events) expect(e.source).toBe(`accounting.${connectionOf(e)}`);
        const started = result.stdout.split('\n').find((l) => l.includes('"kind":"started"')) ?? '';
        expect(JSON.parse(started).connections).toEqual(['sandbox-1', 'sandbox-2', 'sandbox-3']);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.each([
    [['run', '--companies', '0'], '--companies: expected a number of companies, 1-10000'],
    [['run', '--companies', '2', '--connections', 'c.json'], '--companies and --connections: choose one'],
    [['run', '--companies', '2', '--no-sandbox'], '--companies polls the sandbox'],
  ])('refuses %j with exit code 2', async (argv, message) => {
    const cwd = await mkdtemp(join(tmpdir(), 'accounting-events-companies-usage-'));
    try {
      const env = { ACCOUNTING_BASE_URL: 'http://127.0.0.1:9', ACCOUNTING_API_KEY: 'k' };
      const result = await cli(argv, { cwd, env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('refuses a malformed registry file at start, naming the entry and the setting', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'accounting-events-registry-usage-'));
    try {
      await writeFile(
        join(cwd, 'c.json'),
        JSON.stringify({
          connections: [{ name: 'acme', variant: 'xx', credentialsSecret: 'env:ACME_CREDENTIALS' }],
        }),
      );
      const result = await cli(['run', '--connections', 'c.json', '--duration', '1s'], { cwd });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("connection 'acme'");
      expect(result.stderr).toContain('variant');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
