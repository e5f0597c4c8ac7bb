/**
 * The connections benchmark in a process of its own (for a clean peak RSS):
 * `tsx bench/connections-child.ts --count 1000 --cycles 5` prints the figures as its last line (JSON).
 */
import { parseArgs } from 'node:util';
import { measureConnections } from './connections.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values } = parseArgs({
  options: { count: { type: 'string', default: '1000' }, cycles: { type: 'string', default: '5' } },
  strict: true,
});
const { figures } = await measureConnections({
  count: Number(values.count),
  steadyCycles: Number(values.cycles),
  log: (line) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
});
process.stdout.write(`${JSON.stringify(figures)}\n`);
// Embedded servers and keep-alive agents are closed; do not wait for stray timers of dependencies.
process.exit(0);
