/**
 * Issue 33, finding 1: the local runtime's stores answered anyone on the machine. dynalite and s3rver
 * listened on 127.0.0.1 ports: s3rver served unsigned requests, dynalite took any signature
 * (`Signature=00` listed the tables) and answered every preflight with `Access-Control-Allow-Origin: *`.
 *
 * Here the real `run` (the launcher, the sandbox twin, actions, the console and the intake) is
 * started, and every TCP port its process tree listens on is tried as another local process or a
 * web page would: an unsigned S3 listing, a DynamoDB ListTables with a made-up signature, a
 * web-origin preflight. None may answer with data or CORS. The ports are read from /proc (Linux).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_RESOURCES } from '#functions/local/local-stores.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'accounting-events.js');
const START_MS = 180_000;

/** The pids of `root` and all its descendants. */
async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  }
  return tree;
}

/** TCP ports in LISTEN whose socket one of `pids` holds open. */
async function listeningPorts(pids: readonly number[]): Promise<number[]> {
  const byInode = new Map<string, number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] !== '0A') continue; // LISTEN
      const port = Number.parseInt((cols[1] ?? '').split(':')[1] ?? '', 16);
      byInode.set(cols[9] ?? '', port);
    }
  }
  const ports = new Set<number>();
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const port = inode ? byInode.get(inode) : undefined;
      if (port !== undefined) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b);
}

interface Attempt {
  status: number;
  body: string;
  allowOrigin: string | undefined;
}

async function attempt(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Attempt> {
  try {
    const res = await request(`http://127.0.0.1:${port}${path}`, {
      method: method as 'GET',
      headers,
      ...(body !== undefined ? { body } : {}),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await res.body.text();
    const allow = res.headers['access-control-allow-origin'];
    return { status: res.statusCode, body: text, allowOrigin: Array.isArray(allow) ? allow[0] : allow };
  } catch (error) {
    return { status: 0, body: String(error), allowOrigin: undefined };
  }
}

/** The three tries of another process or a web page at one port. */
async function tryPort(port: number) {
  const listing = await attempt(port, 'GET', '/', {});
  const bucket = await attempt(port, 'GET', `/${LOCAL_RESOURCES.archiveBucket}?prefix=isdoc/`, {});
  const tables = await attempt(
    port,
    'POST',
    '/',
    {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      'x-amz-date': '20260101T000000Z',
      authorization:
        'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=00',
    },
    '{}',
  );
  const preflight = await attempt(port, 'OPTIONS', '/', {
    origin: 'https://attacker.example',
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'x-amz-target,authorization,content-type',
  });
  return {
    port,
    s3Listing: /ListAllMyBucketsResult|ListBucketResult|<Key>/.test(listing.body + bucket.body),
    tableNames: tables.body.includes('TableNames'),
    cors: preflight.allowOrigin !== undefined,
  };
}

describe.runIf(existsSync('/proc/net/tcp'))(
  'finding 1: the local stores answer the run and nobody else',
  () => {
    let dir: string;
    let child: ChildProcess;
    let stdout = '';

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'security-stores-'));
      child = spawn(
        process.execPath,
        [BIN, 'run', '--interval', '1s', '--data-dir', 'data', '--intake-port', '0', '--console-port', '0'],
        {
          cwd: dir,
          env: {
            PATH: process.env.PATH ?? '',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            INTAKE_SHOPIFY_SECRET: 'security-stores-intake-secret-000000',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr?.resume();
      const until = Date.now() + START_MS;
      // Started, the console served, and the first poll done (the actions have written to both stores).
      while (!(/console: http/.test(stdout) && /poll: \d+ events/.test(stdout))) {
        if (child.exitCode !== null) throw new Error(`run exited ${child.exitCode}: ${stdout}`);
        if (Date.now() > until) throw new Error(`run did not start: ${stdout}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }, START_MS + 10_000);

    afterAll(async () => {
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (dir) await rm(dir, { recursive: true, force: true });
    }, 90_000);

    it('no TCP port of the run but the console, the intake and the sandbox; none answers a listing, a made-up signature or a preflight', async () => {
      const pid = child.pid as number;
      const ports = await listeningPorts(await processTree(pid));
      const console_ = Number(/console: http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1]);
      const intake = Number(/intake POST http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1]);
      const service = Number(/service http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1]);
      console.info(
        `security: run's listening TCP ports ${ports.join(', ')} (console ${console_}, intake ${intake}, sandbox ${service})`,
      );
      // The scan sees the run's own ports (it is not vacuous), and no other: no store on TCP.
      expect(ports).toEqual([console_, intake, service].sort((a, b) => a - b));
      const results = await Promise.all(ports.map(tryPort));
      // The sandbox twin answers preflights as the public service it stands in for does; nothing else may.
      expect(results).toEqual(
        ports.map((port) => ({ port, s3Listing: false, tableNames: false, cors: port === service })),
      );
    }, 60_000);

    it('the stores listen on sockets only the owner can reach', async () => {
      const sockets = join(dir, 'data', 'sockets');
      expect((await lstat(sockets)).mode & 0o777).toBe(0o700);
      for (const name of ['dynamodb.sock', 's3.sock']) {
        const info = await lstat(join(sockets, name));
        expect(info.isSocket()).toBe(true);
        expect(info.mode & 0o077).toBe(0);
      }
    });
  },
);
