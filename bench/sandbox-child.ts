/**
 * The sandbox of the connections benchmark in a process of its own, so the poller's process
 * measures only its own CPU. Its clock is the benchmark's: the parent sends the offset it runs
 * ahead of the system clock. One JSON line per command on stdin, one answer per line on stdout:
 * `{ id, op: 'offset' | 'faults' | 'counts' | 'wire' | 'change' | 'cpu', … }`. The first line out is
 * `{ baseUrl }`. `change` makes one change in company k (the activity API) and answers when it
 * happened on the sandbox's clock.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startSandbox } from '../sandbox/index.js';

const { values } = parseArgs({
  options: {
    companies: { type: 'string' },
    key: { type: 'string' },
    cert: { type: 'string' },
  },
  strict: true,
});
let offset = 0;
const clock = { now: () => new Date(Date.now() + offset) };
const tls =
  values.key && values.cert
    ? { key: readFileSync(values.key, 'utf8'), cert: readFileSync(values.cert, 'utf8') }
    : undefined;
const sandbox = await startSandbox({
  companies: Number(values.companies),
  clock,
  ...(tls ? { tls } : {}),
});
const reply = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
reply({ baseUrl: sandbox.baseUrl });

type Command = { id: number; op: string; offset?: number; faults?: unknown; company?: number };

async function run(c: Command): Promise<unknown> {
  switch (c.op) {
    case 'offset':
      offset = c.offset ?? 0;
      return offset;
    case 'faults':
      sandbox.setFaults(c.faults as Parameters<typeof sandbox.setFaults>[0]);
      return true;
    case 'counts':
      return sandbox.requestCounts().byCredential;
    case 'wire':
      return sandbox.wire();
    case 'cpu':
      return process.cpuUsage();
    case 'change': {
      const at = clock.now().getTime();
      const res = await fetch(`${sandbox.baseUrl}/_sandbox/activity?company=${c.company}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count: 1 }),
      });
      if (!res.ok) throw new Error(`activity on company ${c.company} answered ${res.status}`);
      await res.arrayBuffer();
      return { at };
    }
    default:
      throw new Error(`unknown command ${c.op}`);
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const c = JSON.parse(line) as Command;
  run(c).then(
    (result) => reply({ id: c.id, result }),
    (error: unknown) => reply({ id: c.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
lines.on('close', () => {
  void sandbox.close().then(() => process.exit(0));
});
