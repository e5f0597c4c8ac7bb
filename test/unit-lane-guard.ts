/**
 * Setup of the fast lane (vitest.unit.config.ts): a test file there that starts the sandbox, an
 * embedded AWS server (dynalite, s3rver), the local runtime or a child process fails at once, naming
 * what it started, instead of quietly slowing the lane down. Such a file belongs to the full suite
 * only: name the helper it calls among the `STARTERS` of test/unit-tests.ts, which derives the
 * lane. A test's own in-process fake responder
 * (test/fakes/) may listen.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

export class FastLaneServerError extends Error {
  override readonly name = 'FastLaneServerError';
}

const message = (what: string) =>
  `the fast lane starts no ${what}: name the helper this test file calls among the STARTERS of test/unit-tests.ts (it still runs in npm test)`;

/** Where a listening server comes from, by the frames of the call that starts it. */
const HEAVY_SERVERS: ReadonlyArray<[RegExp, string]> = [
  [/[/\\]sandbox[/\\]/, 'sandbox'],
  [/[/\\]node_modules[/\\]dynalite[/\\]/, 'dynalite'],
  [/[/\\]node_modules[/\\]s3rver[/\\]/, 's3rver'],
  [/[/\\]functions[/\\]local[/\\]/, 'local runtime server'],
];

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function guardedListen(this: net.Server, ...args: unknown[]) {
  const stack = new Error().stack ?? '';
  const heavy = HEAVY_SERVERS.find(([pattern]) => pattern.test(stack));
  if (heavy) throw new FastLaneServerError(message(heavy[1]));
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof net.Server.prototype.listen;

for (const name of ['spawn', 'fork', 'exec', 'execFile', 'spawnSync', 'execSync', 'execFileSync'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => {
    throw new FastLaneServerError(message('child process'));
  };
}
syncBuiltinESMExports();
