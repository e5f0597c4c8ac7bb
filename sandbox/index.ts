/**
 * The sandbox: a stateful twin of the accounting service with fault injection.
 * `startSandbox()` serves it on 127.0.0.1 (ephemeral port by default), in-process.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  close(): Promise<void>;
}

export async function startSandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const { clock, log, ...rest } = options;
  // Many companies and no sizes given: smaller companies, so a thousand of them stay cheap.
  const sized = rest.sizes === undefined && (rest.companies ?? 1) > 1 ? { sizes: MANY_COMPANIES_SIZES } : {};
  const resolved = optionsSchema.parse({ ...rest, ...sized });
  const server = new SandboxServer(resolved, clock ?? systemClock, log);
  const http = createServer({ keepAlive: true }, server.listener);
  http.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(resolved.port, resolved.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const baseUrl = `http://${host}:${address.port}`;
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
    close: async () => {
      server.activity.stop();
      await new Promise<void>((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
        http.closeAllConnections();
      });
    },
  };
}
