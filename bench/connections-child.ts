/**
 * The connections benchmark in a process of its own (for a clean peak RSS):
 * `tsx bench/connections-child.ts --count 1000 --cycles 5 [--payments off] [--credentials ssm]` prints
 * the figures as its last line (JSON); `--payments off` polls without the payment lists (their cost
 * is the difference); `--credentials ssm` stores each connection's credentials as an SSM SecureString
 * instead of sealing them in its entry (the default), to compare; `--shard-size N` connections per
 * shard instead of 100 (a small run with as many shards, hence containers, as a large one).
 * The sandbox is served over TLS with a throw-away certificate: this process starts itself again
 * trusting it (`NODE_EXTRA_CA_CERTS` is read when a process starts).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { measureConnections } from './connections.js';
import { makeTlsFiles } from './sandbox-process.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    cycles: { type: 'string', default: '5' },
    payments: { type: 'string', default: 'on' },
    credentials: { type: 'string', default: 'sealed' },
    'shard-size': { type: 'string' },
    key: { type: 'string' },
  },
  strict: true,
});
if (values.payments !== 'on' && values.payments !== 'off') {
  throw new Error(`--payments: expected on or off, got ${values.payments}`);
}
if (values.credentials !== 'sealed' && values.credentials !== 'ssm') {
  throw new Error(`--credentials: expected sealed or ssm, got ${values.credentials}`);
}
if (values.key === undefined) {
  const tls = makeTlsFiles();
  try {
    const again = spawnSync(
      process.execPath,
      [...process.execArgv, ...process.argv.slice(1), '--key', tls.key],
      {
        stdio: 'inherit',
        env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.cert },
      },
    );
    process.exitCode = again.status ?? 1;
  } finally {
    tls.dispose();
  }
} else {
  const cert = process.env.NODE_EXTRA_CA_CERTS as string;
  readFileSync(cert); // trusted at this process's start
  const { figures } = await measureConnections({
    count: Number(values.count),
    steadyCycles: Number(values.cycles),
    payments: values.payments !== 'off',
    credentials: values.credentials,
    ...(values['shard-size'] !== undefined ? { shardSize: Number(values['shard-size']) } : {}),
    tls: { key: values.key, cert },
    log: (line) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  // Embedded servers and keep-alive agents are closed; do not wait for stray timers of dependencies.
  process.exit(0);
}
