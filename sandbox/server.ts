/**
 * The sandbox HTTP server (node:http): the accounting API of the endpoint catalog under `/v1`,
 * the authorisation server under `/auth`, and the admin API under `/_sandbox/`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { findCollection } from '../functions/accounting/collections.js';
import { resolveOperations } from '../functions/accounting/endpoints.js';
import { ActivityGenerator } from './activity.js';
import { adminReply, type SettingsPatch } from './admin-api.js';
import { type AuthResult, AuthServer, type Credential, openIdConfiguration } from './auth.js';
import { Companies, type Company, sandboxScope } from './company.js';
import type { Domain } from './domain.js';
import { FaultEngine } from './faults.js';
import { json, ProblemError, problemReply, type Reply, readBody, serialise, writeHead } from './http.js';
import type { Faults, ResolvedSandboxOptions, SandboxClock } from './options.js';
import { countRequest, emptyRequestCounts, type RequestCounts } from './request-counts.js';
import { type RouteMatch, type RouteResult, Router } from './router.js';
import type { SandboxState } from './state.js';

interface RequestContext {
  method: string;
  url: URL;
  params: Record<string, string>;
  body: Buffer;
  credential?: Credential;
}

export class SandboxServer {
  readonly state: SandboxState;
  readonly domain: Domain;
  readonly auth: AuthServer;
  readonly faults: FaultEngine;
  readonly activity: ActivityGenerator;
  /** Company 1 is `state`/`domain`; the others are built on their first request. */
  readonly companies: Companies;
  private readonly router: Router;
  private counts: RequestCounts = emptyRequestCounts();
  baseUrl = '';
  authUrl = '';

  constructor(
    public options: ResolvedSandboxOptions,
    clock: SandboxClock,
    private readonly log?: (line: string) => void,
  ) {
    const now = () => clock.now().getTime();
    this.router = new Router(resolveOperations(options.variant, options.pathOverrides).values());
    this.companies = new Companies(options.companies, () => this.options, clock);
    const first = this.companies.get(1);
    this.state = first.state;
    this.domain = first.domain;
    this.auth = new AuthServer(
      now,
      options.tokenLifetimeSeconds,
      options.companies,
      sandboxScope(options.variant),
    );
    this.faults = new FaultEngine(options.faults, options.seed, now);
    this.activity = new ActivityGenerator(
      () => this.companies.nextInTurn().domain,
      () => this.options.activity.weights,
    );
  }

  /** Applies new fault settings (merged into the current ones). */
  setFaults(patch: Record<string, unknown>): void {
    this.syncStateFaults(this.faults.set(patch));
  }

  /** Replaces the fault settings; the state stamps and commits with their clock skew and delay. */
  replaceFaults(faults: Faults): void {
    this.faults.replace(faults);
    this.syncStateFaults(faults);
  }

  private syncStateFaults(faults: Faults): void {
    for (const { state } of this.companies.active()) {
      state.settings.clockSkewMs = faults.clockSkewMs;
      state.settings.lateVisibilityMs = faults.lateVisibilityMs;
    }
  }

  requestCounts(): RequestCounts {
    return structuredClone(this.counts);
  }

  resetRequestCounts(): void {
    this.counts = emptyRequestCounts();
  }

  private count(endpoint: string, credential: string): void {
    countRequest(this.counts, endpoint, credential);
  }

  /** The node:http request listener. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    this.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        const reply = problemReply(500, undefined, undefined, 'Unexpected sandbox error.');
        const body = serialise(reply);
        writeHead(res, reply, body.length);
        res.end(body);
      } else {
        res.destroy();
      }
      this.log?.(`sandbox error ${(error as Error).message}`);
    });
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const pathname = url.pathname;
    if (method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': 'Authorization, Api-Key, Content-Type',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      await this.send(res, problemReply(error.status), false);
      return;
    }
    if (pathname === '/_sandbox' || pathname.startsWith('/_sandbox/')) {
      await this.send(
        res,
        this.safely(() => adminReply(this, method, url, body)),
        false,
      );
      return;
    }
    const faulty = this.faults.applies(pathname);
    if (pathname.startsWith('/auth/')) {
      this.count(pathname === '/auth/connect/token' ? 'Auth.token' : 'Auth.openIdConfiguration', 'anonymous');
      if (faulty && (await this.preFaults(req))) return;
      await this.send(
        res,
        this.safely(() => this.authRoute(method, pathname, body, req)),
        faulty,
      );
      return;
    }
    await this.handleApi(req, res, { method, url, params: {}, body }, faulty);
  }

  /** A request to the accounting API: authenticated, routed, possibly faulted, then answered. */
  private async handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    request: RequestContext,
    faulty: boolean,
  ): Promise<void> {
    const { method, url } = request;
    const route = this.router.match(method, url.pathname);
    const endpoint = route.kind === 'match' ? route.match.op.id : 'unmatched';
    const auth = this.auth.authenticate(req.headers);
    this.count(endpoint, auth.ok ? auth.credential.name : `unauthenticated:${auth.reason}`);
    if (faulty && (await this.preFaults(req))) return;
    const company = auth.ok ? this.companies.get(auth.credential.company) : undefined;
    const admitted = this.admit(method, route, auth, faulty);
    let reply: Reply;
    let listCollection: string | undefined;
    if ('reply' in admitted) {
      reply = admitted.reply;
    } else {
      const { match, credential } = admitted;
      const ctx: RequestContext = { ...request, params: match.params, credential };
      reply = this.safely(() => (company as Company).operations.dispatch(match.op.id, ctx));
      if (match.op.id.endsWith('.list') && reply.status === 200) listCollection = match.op.collection;
    }
    this.log?.(`${method} ${url.pathname} → ${reply.status}`);
    await this.send(res, reply, faulty);
    if (listCollection && faulty && company) this.editWhilePaging(company, listCollection);
  }

  /**
   * The operation to run, or the answer instead: 401, 404, 405, 403 (a read-only credential
   * writing, or a collection the credentials lack the right to), the rate limit's 429, or a random
   * error status of the fault settings.
   */
  private admit(
    method: string,
    route: RouteResult,
    auth: AuthResult,
    faulty: boolean,
  ): { reply: Reply } | { match: RouteMatch; credential: Credential } {
    if (!auth.ok) {
      const challenge = `Bearer error="invalid_token", error_description="${auth.reason}"`;
      return { reply: problemReply(401, undefined, { 'WWW-Authenticate': challenge }) };
    }
    if (route.kind === 'none') return { reply: problemReply(404) };
    if (route.kind === 'method')
      return { reply: problemReply(405, undefined, { Allow: route.allowed.join(', ') }) };
    if (auth.credential.readOnly && method !== 'GET') return { reply: problemReply(403) };
    if (this.forbidden(route.match.op.path)) return { reply: problemReply(403) };
    // Both are drawn (in this order) before either is acted on: the seeded fault sequence stays the same.
    const wait = this.faults.rateLimited(auth.credential.name);
    const random = faulty ? this.faults.randomError() : { kind: 'none' as const };
    if (wait !== undefined) return { reply: problemReply(429, undefined, { 'Retry-After': String(wait) }) };
    if (random.kind === 'status') {
      const retryAfter = random.retryAfterSeconds;
      const headers = retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : undefined;
      return { reply: problemReply(random.status, undefined, headers) };
    }
    return { match: route.match, credential: auth.credential };
  }

  /** Whether the operation's path is under a collection the credentials lack the right to. */
  private forbidden(path: string): boolean {
    const collection = /^\/(?:v\d+\/)?([^/]+)/.exec(path)?.[1];
    return collection !== undefined && this.options.forbiddenCollections.includes(collection);
  }

  private async preFaults(req: IncomingMessage): Promise<boolean> {
    const delay = this.faults.latencyMs();
    if (delay > 0) await sleep(delay);
    if (this.faults.reset()) {
      const socket = req.socket as typeof req.socket & { resetAndDestroy?: () => void };
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
      return true;
    }
    return false;
  }

  private editWhilePaging({ state, domain }: Company, collection: string): void {
    const spec = findCollection(collection, state.settings.variant);
    if (!spec || spec.kind === 'reference') return;
    const count = this.faults.editsWhilePaging();
    for (const id of state.sampleIds(spec.name, count)) domain.touch(spec.name, id);
  }

  private safely(fn: () => Reply): Reply {
    try {
      return fn();
    } catch (error) {
      if (error instanceof ProblemError)
        return problemReply(error.status, error.errors, undefined, error.detail);
      throw error;
    }
  }

  private async send(res: ServerResponse, reply: Reply, faulty: boolean): Promise<void> {
    let body = serialise(reply);
    const isJson = reply.contentType?.startsWith('application/json') ?? false;
    if (faulty && isJson && reply.status < 300 && body.length > 1 && this.faults.malformedJson()) {
      body = Buffer.concat([
        body.subarray(0, Math.max(1, Math.floor(body.length / 2))),
        Buffer.from('\u0000'),
      ]);
    }
    const slow = faulty && body.length > 1 ? this.faults.slowBody() : undefined;
    // The Date header follows the service's clock (with its skew), as a real server's would.
    writeHead(res, reply, body.length, new Date(this.state.nowMs() + this.state.settings.clockSkewMs));
    if (!slow) {
      res.end(body);
      return;
    }
    const size = Math.ceil(body.length / slow.chunks);
    for (let offset = 0; offset < body.length; offset += size) {
      if (res.destroyed) return;
      res.write(body.subarray(offset, offset + size));
      if (offset + size < body.length) await sleep(slow.delayMs);
    }
    res.end();
  }

  private authRoute(method: string, pathname: string, body: Buffer, req: IncomingMessage): Reply {
    if (pathname === '/auth/.well-known/openid-configuration' && method === 'GET') {
      return json(200, openIdConfiguration(this.authUrl, sandboxScope(this.options.variant)));
    }
    if (pathname === '/auth/connect/token') {
      if (method !== 'POST') return problemReply(405, undefined, { Allow: 'POST' });
      const form = new URLSearchParams(body.toString('utf8'));
      let basic: { id: string; secret: string } | undefined;
      const authorization = req.headers.authorization;
      if (authorization?.startsWith('Basic ')) {
        const [id, secret] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':');
        if (id !== undefined && secret !== undefined) {
          basic = { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
        }
      }
      const result = this.auth.token(form, basic);
      return json(result.ok ? 200 : result.status, result.body, { 'Cache-Control': 'no-store' });
    }
    return problemReply(404);
  }

  /** Resets state, counters, outbox, tokens and faults to the run's options. */
  reset(): void {
    for (const { state, domain } of this.companies.active()) {
      state.reseed();
      domain.reset();
    }
    this.auth.reset();
    this.resetRequestCounts();
    this.replaceFaults(this.options.faults);
  }

  settings() {
    return {
      maxPageSize: this.options.maxPageSize,
      timestampPrecision: this.options.timestampPrecision,
      isdocReadyDelayMs: this.options.isdocReadyDelayMs,
      tokenLifetimeSeconds: this.options.tokenLifetimeSeconds,
    };
  }

  applySettings(input: SettingsPatch): void {
    this.options = {
      ...this.options,
      ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
    };
    this.auth.tokenLifetimeSeconds = this.options.tokenLifetimeSeconds;
    for (const { state } of this.companies.active())
      state.settings.precision = this.options.timestampPrecision;
  }
}
