/**
 * The parent's side of bench/sandbox-child.ts: starts the sandbox in its own process (over TLS
 * with a throw-away self-signed certificate for 127.0.0.1 when asked) and sends it commands.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Faults, WireCounts } from '../sandbox/index.js';

export interface SandboxProcess {
  baseUrl: string;
  setOffset(offsetMs: number): Promise<void>;
  setFaults(faults: Partial<Faults>): Promise<void>;
  /** Requests per credential since the start. */
  requestCounts(): Promise<Record<string, number>>;
  wire(): Promise<WireCounts>;
  /** One change in company k; when it happened on the sandbox's clock (ms). */
  change(company: number): Promise<number>;
  close(): Promise<void>;
}

export interface TlsFiles {
  key: string;
  cert: string;
  dispose(): void;
}

/**
 * A self-signed ECDSA P-256 certificate for 127.0.0.1, made with openssl (cheap for the one
 * sandbox process to sign handshakes with; the client's side of a handshake costs about the same
 * as with RSA). The poller's process trusts it through `NODE_EXTRA_CA_CERTS` (read at its start).
 */
export function makeTlsFiles(): TlsFiles {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key, cert, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startSandboxProcess(options: {
  companies: number;
  tls?: { key: string; cert: string };
}): Promise<SandboxProcess> {
  const args = [
    '--import',
    'tsx',
    new URL('./sandbox-child.ts', import.meta.url).pathname,
    '--companies',
    String(options.companies),
    ...(options.tls ? ['--key', options.tls.key, '--cert', options.tls.cert] : []),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...(options.tls ? { NODE_EXTRA_CA_CERTS: options.tls.cert } : {}) },
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let ready: ((baseUrl: string) => void) | undefined;
  let failed: ((e: Error) => void) | undefined;
  const started = new Promise<string>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  child.once('exit', (code) => {
    const error = new Error(`the sandbox process exited (${code})`);
    failed?.(error);
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  });
  lines.on('line', (line) => {
    const m = JSON.parse(line) as { id?: number; result?: unknown; error?: string; baseUrl?: string };
    if (m.baseUrl !== undefined) return ready?.(m.baseUrl);
    const w = m.id === undefined ? undefined : waiting.get(m.id);
    if (!w || m.id === undefined) return;
    waiting.delete(m.id);
    if (m.error !== undefined) w.reject(new Error(m.error));
    else w.resolve(m.result);
  });
  const baseUrl = await started;
  let next = 0;
  const send = <T>(op: string, extra: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.stdin?.write(`${JSON.stringify({ id, op, ...extra })}\n`);
    });
  return {
    baseUrl,
    setOffset: async (offset) => {
      await send('offset', { offset });
    },
    setFaults: async (faults) => {
      await send('faults', { faults });
    },
    requestCounts: () => send('counts'),
    wire: () => send('wire'),
    change: (company) => send<{ at: number }>('change', { company }).then((r) => r.at),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin?.end();
      }),
  };
}
