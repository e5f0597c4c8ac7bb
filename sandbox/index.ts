/**
 * The sandbox: a stateful twin of the accounting service with fault injection.
 * `startSandbox()` serves it on 127.0.0.1 (ephemeral port by default), in-process.
 */
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { companyCredentials, MANY_COMPANIES_SIZES, type SandboxCredentials } from './company.js';
import { type Faults, optionsSchema, type SandboxOptions, systemClock } from './options.js';
import type { RequestCounts } from './request-counts.js';
import { SandboxServer } from './server.js';
import type { SandboxState } from './state.js';

export type { SandboxCredentials } from './company.js';
export type { GroundTruthVersion } from './ground-truth.js';
export type { Faults, FaultsInput, SandboxClock, SandboxOptions } from './options.js';
export { DEMO_CREDENTIALS } from './options.js';
export type { RequestCounts } from './request-counts.js';
export type { SandboxState } from './state.js';

export interface Sandbox {
  /** `http://127.0.0.1:<port>`; API paths start with `/v1`. */
  baseUrl: string;
  /** The authorisation server: `${authUrl}/connect/token`, `${authUrl}/.well-known/openid-configuration`. */
  authUrl: string;
  /** Company 1's credentials (the demo credentials). */
  credentials: SandboxCredentials;
  /** Companies served (`--companies`); each has its own data and credentials. */
  companies: number;
  /** The credentials of company `index` (1…companies): test fixtures, valid against this sandbox only. */
  credentialsOf(index: number): SandboxCredentials;
  /** The store, for in-process tests (list, get, update, remove, groundTruth, …). */
  state: SandboxState;
  /** The server (domain operations, settings, activity generator), for in-process tests. */
  server: SandboxServer;
  /** Merges fault settings into the current ones (validated). */
  setFaults(faults: Partial<Faults>): void;
  /** Request counts per endpoint and credential. */
  requestCounts(): RequestCounts;
  /** Back to the seeded state of this run (changes, counters, outbox, tokens and faults). */
  reset(): void;
  /** Bytes on the wire since the start (TLS records included when served over TLS), and TLS handshakes. */
  wire(): WireCounts;
  close(): Promise<void>;
}

export interface WireCounts {
  /** Bytes the clients sent (the callers' egress). */
  bytesIn: number;
  /** Bytes the sandbox sent. */
  bytesOut: number;
  connections: number;
  tlsHandshakes: number;
}

export interface StartOptions extends Partial<SandboxOptions> {
  /** Serves https with this key and certificate (PEM) instead of plain http. */
  tls?: { key: string; cert: string };
}

/** Bytes of the sockets closed so far plus those of the open ones. */
function wireCounter() {
  const open = new Set<Socket>();
  const counts = { bytesIn: 0, bytesOut: 0, connections: 0, tlsHandshakes: 0 };
  return {
    track(socket: Socket) {
      counts.connections++;
      open.add(socket);
      socket.once('close', () => {
        open.delete(socket);
        counts.bytesIn += socket.bytesRead;
        counts.bytesOut += socket.bytesWritten;
      });
    },
    handshake() {
      counts.tlsHandshakes++;
    },
    read(): WireCounts {
      let bytesIn = counts.bytesIn;
      let bytesOut = counts.bytesOut;
      for (const s of open) {
        bytesIn += s.bytesRead;
        bytesOut += s.bytesWritten;
      }
      return { ...counts, bytesIn, bytesOut };
    },
  };
}

export async function startSandbox(options: StartOptions = {}): Promise<Sandbox> {
  const { clock, log, tls, ...rest } = options;
  // Many companies and no sizes given: smaller companies, so a thousand of them stay cheap.
  const sized = rest.sizes === undefined && (rest.companies ?? 1) > 1 ? { sizes: MANY_COMPANIES_SIZES } : {};
  const resolved = optionsSchema.parse({ ...rest, ...sized });
  const server = new SandboxServer(resolved, clock ?? systemClock, log);
  const http = tls
    ? createTlsServer({ keepAlive: true, key: tls.key, cert: tls.cert }, server.listener)
    : createServer({ keepAlive: true }, server.listener);
  http.keepAliveTimeout = 5000;
  const wire = wireCounter();
  // The raw TCP socket (under TLS too): its bytes are what crosses the network.
  http.on('connection', (socket: Socket) => wire.track(socket));
  if (tls) http.on('secureConnection', () => wire.handshake());
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(resolved.port, resolved.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const baseUrl = `${tls ? 'https' : 'http'}://${host}:${address.port}`;
  server.baseUrl = baseUrl;
  server.authUrl = `${baseUrl}/auth`;
  if (resolved.activity.enabled) server.activity.start(resolved.activity.ratePerSecond);
  return {
    baseUrl,
    authUrl: server.authUrl,
    credentials: companyCredentials(1, resolved.variant),
    companies: resolved.companies,
    credentialsOf: (index) => {
      if (!Number.isInteger(index) || index < 1 || index > resolved.companies)
        throw new RangeError(`no company ${index} (1…${resolved.companies})`);
      return companyCredentials(index, resolved.variant);
    },
    state: server.state,
    server,
    setFaults: (faults) => server.setFaults(faults as Record<string, unknown>),
    requestCounts: () => server.requestCounts(),
    reset: () => server.reset(),
    wire: () => wire.read(),
    close: async () => {
      server.activity.stop();
      await new Promise<void>((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
        http.closeAllConnections();
      });
    },
  };
}
