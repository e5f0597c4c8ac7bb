/**
 * The sandbox HTTP server (node:http): the accounting API of the endpoint catalog under `/v1`,
 * the authorisation server under `/auth`, and the admin API under `/_sandbox/`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { findCollection } from '../functions/accounting/collections.js';
import { resolveOperations } from '../functions/accounting/endpoints.js';
import { ActivityGenerator } from './activity.js';
import { AuthServer, type Credential, openIdConfiguration } from './auth.js';
import { Companies, type Company, companyCredentials } from './company.js';
import type { Domain } from './domain.js';
import { FaultEngine } from './faults.js';
import {
  json,
  notFound,
  ProblemError,
  parseJsonBody,
  problemReply,
  type Reply,
  readBody,
  serialise,
  writeHead,
} from './http.js';
import { type Faults, faultsSchema, type ResolvedSandboxOptions, type SandboxClock } from './options.js';
import { Router } from './router.js';
import type { SandboxState } from './state.js';
import { validate } from './validation.js';

export interface RequestCounts {
  total: number;
  byEndpoint: Record<string, number>;
  byCredential: Record<string, number>;
  byEndpointAndCredential: Record<string, Record<string, number>>;
}

interface RequestContext {
  method: string;
  url: URL;
  params: Record<string, string>;
  body: Buffer;
  credential?: Credential;
}

function queryMap(url: URL): Map<string, string> {
  const map = new Map<string, string>();
  for (const [k, v] of url.searchParams) if (!map.has(k.toLowerCase())) map.set(k.toLowerCase(), v);
  return map;
}

const settingsSchema = z
  .object({
    maxPageSize: z.number().int().positive(),
    timestampPrecision: z.enum(['ms', 's']),
    isdocReadyDelayMs: z.number().min(0),
    tokenLifetimeSeconds: z.number().int().positive(),
  })
  .partial()
  .strict();

const seedSchema = z
  .object({
    seed: z.number().int(),
    documents: z.number().int().min(0),
    partners: z.number().int().min(1),
    perCollection: z.record(z.string(), z.number().int().min(0)),
  })
  .partial()
  .strict();

export class SandboxServer {
  readonly state: SandboxState;
  readonly domain: Domain;
  readonly auth: AuthServer;
  readonly faults: FaultEngine;
  readonly activity: ActivityGenerator;
  /** Company 1 is `state`/`domain`; the others are built on their first request. */
  readonly companies: Companies;
  private readonly router: Router;
  private counts: RequestCounts = { total: 0, byEndpoint: {}, byCredential: {}, byEndpointAndCredential: {} };
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
    this.auth = new AuthServer(now, options.tokenLifetimeSeconds, options.companies);
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
  private replaceFaults(faults: Faults): void {
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
    this.counts = { total: 0, byEndpoint: {}, byCredential: {}, byEndpointAndCredential: {} };
  }

  private count(endpoint: string, credential: string): void {
    this.counts.total++;
    this.counts.byEndpoint[endpoint] = (this.counts.byEndpoint[endpoint] ?? 0) + 1;
    this.counts.byCredential[credential] = (this.counts.byCredential[credential] ?? 0) + 1;
    const byCred = this.counts.byEndpointAndCredential[endpoint] ?? {};
    this.counts.byEndpointAndCredential[endpoint] = byCred;
    byCred[credential] = (byCred[credential] ?? 0) + 1;
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
        this.safely(() => this.admin(method, url, body)),
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
    const route = this.router.match(method, pathname);
    const endpoint = route.kind === 'match' ? route.match.op.id : 'unmatched';
    const auth = this.auth.authenticate(req.headers);
    this.count(endpoint, auth.ok ? auth.credential.name : `unauthenticated:${auth.reason}`);
    if (faulty && (await this.preFaults(req))) return;
    let reply: Reply;
    let listCollection: string | undefined;
    const company = auth.ok ? this.companies.get(auth.credential.company) : undefined;
    if (!auth.ok) {
      reply = problemReply(401, undefined, {
        'WWW-Authenticate': `Bearer error="invalid_token", error_description="${auth.reason}"`,
      });
    } else if (route.kind === 'none') {
      reply = problemReply(404);
    } else if (route.kind === 'method') {
      reply = problemReply(405, undefined, { Allow: route.allowed.join(', ') });
    } else if (auth.credential.readOnly && method !== 'GET') {
      reply = problemReply(403);
    } else {
      const wait = this.faults.rateLimited(auth.credential.name);
      const random = faulty ? this.faults.randomError() : { kind: 'none' as const };
      if (wait !== undefined) {
        reply = problemReply(429, undefined, { 'Retry-After': String(wait) });
      } else if (random.kind === 'status') {
        reply = problemReply(
          random.status,
          undefined,
          random.retryAfterSeconds !== undefined
            ? { 'Retry-After': String(random.retryAfterSeconds) }
            : undefined,
        );
      } else {
        const ctx: RequestContext = {
          method,
          url,
          params: route.match.params,
          body,
          credential: auth.credential,
        };
        const opId = route.match.op.id;
        reply = this.safely(() => (company as Company).operations.dispatch(opId, ctx));
        if (opId.endsWith('.list') && reply.status === 200) listCollection = route.match.op.collection;
      }
    }
    this.log?.(`${method} ${pathname} → ${reply.status}`);
    await this.send(res, reply, faulty);
    if (listCollection && faulty && company) this.editWhilePaging(company, listCollection);
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
      return json(200, openIdConfiguration(this.authUrl));
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

  private admin(method: string, url: URL, raw: Buffer): Reply {
    const parts = url.pathname.split('/').filter(Boolean).slice(1).map(decodeURIComponent);
    const route = `${method} ${parts[0] ?? ''}`;
    const q = queryMap(url);
    const body = () => parseJsonBody(raw, false) ?? {};
    // `?company=k` addresses company k's data (default 1).
    const { state, domain, index } = this.adminCompany(q.get('company'));
    switch (route) {
      case 'GET ':
        return json(200, {
          baseUrl: this.baseUrl,
          authUrl: this.authUrl,
          credentials: companyCredentials(index),
          variant: state.settings.variant,
          seed: state.settings.seed,
          companies: this.companies.count,
          company: index,
          counts: state.counts(),
          settings: this.settings(),
          activity: { running: this.activity.running },
          memory: { rssMb: Math.round(process.memoryUsage().rss / 1048576) },
        });
      case 'POST reset':
        this.reset();
        return json(200, { reset: true, counts: state.counts() });
      case 'POST seed': {
        const input = validate(seedSchema, body());
        this.options = {
          ...this.options,
          seed: input.seed ?? this.options.seed,
          sizes: {
            documents: input.documents ?? this.options.sizes.documents,
            partners: input.partners ?? this.options.sizes.partners,
            perCollection: input.perCollection ?? this.options.sizes.perCollection,
          },
        };
        state.reseed({
          seed: this.options.seed + index - 1,
          documents: this.options.sizes.documents,
          partners: this.options.sizes.partners,
          perCollection: this.options.sizes.perCollection,
        });
        domain.reset();
        return json(200, { seed: this.options.seed, counts: state.counts() });
      }
      case 'GET faults':
        return json(200, this.faults.faults);
      case 'PUT faults':
      case 'POST faults':
      case 'PATCH faults': {
        const patch = validate(faultsSchema.partial(), body());
        this.setFaults(patch);
        return json(200, this.faults.faults);
      }
      case 'DELETE faults':
        this.replaceFaults(faultsSchema.parse({}));
        return json(200, this.faults.faults);
      case 'GET settings':
        return json(200, this.settings());
      case 'PUT settings':
      case 'POST settings': {
        const input = validate(settingsSchema, body());
        this.applySettings(input);
        return json(200, this.settings());
      }
      case 'GET ground-truth': {
        const versions = state.groundTruth({
          ...(q.get('collection') ? { collection: q.get('collection') as string } : {}),
          ...(q.get('id') ? { id: q.get('id') as string } : {}),
          includeSeed: q.get('includeseed') !== 'false',
          copies: q.get('copies') === 'true',
        });
        return json(200, { count: versions.length, versions });
      }
      case 'DELETE records': {
        const collection = findCollection(parts[1] ?? '', state.settings.variant);
        if (!collection || !parts[2]) throw notFound();
        if (!state.remove(collection.name, parts[2])) throw notFound();
        return json(200, { deleted: true, collection: collection.name, id: parts[2].toLowerCase() });
      }
      case 'POST edit': {
        const collection = findCollection(parts[1] ?? '', state.settings.variant);
        if (!collection || collection.kind === 'reference' || !parts[2]) throw notFound();
        const patch = body();
        if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
          throw new ProblemError(400, { $: ['The body must be a JSON object of fields to set.'] });
        }
        const updated = domain.touch(collection.name, parts[2], patch as Record<string, unknown>);
        if (!updated) throw notFound();
        return json(200, updated);
      }
      case 'GET requests':
        return json(200, this.requestCounts());
      case 'DELETE requests':
        this.resetRequestCounts();
        return json(200, this.requestCounts());
      case 'GET outbox':
        return json(200, { messages: domain.outbox });
      case 'DELETE outbox':
        domain.outbox = [];
        return json(200, { messages: [] });
      case 'GET sendings':
        return json(200, {
          sendings: [...domain.sendings.keys()].map((s) => domain.eInvoiceStatus(s)),
        });
      case 'POST activity': {
        const input = validate(
          z
            .object({
              count: z.number().int().min(1).max(10_000).default(1),
              ratePerSecond: z.number().min(0).optional(),
            })
            .strict(),
          body(),
        );
        if (parts[1] === 'start' || parts[1] === 'stop') {
          if (parts[1] === 'start')
            this.activity.start(input.ratePerSecond ?? this.options.activity.ratePerSecond);
          else this.activity.stop();
          return json(200, { running: this.activity.running });
        }
        const actions = [];
        for (let i = 0; i < input.count; i++) actions.push(this.activity.tick(domain));
        return json(200, { actions });
      }
      default:
        return problemReply(404);
    }
  }

  private adminCompany(value: string | undefined): Company {
    if (value === undefined) return this.companies.get(1);
    const index = Number(value);
    if (!Number.isInteger(index) || index < 1 || index > this.companies.count) {
      throw new ProblemError(404, undefined, `no company '${value}' (1…${this.companies.count})`);
    }
    return this.companies.get(index);
  }

  settings() {
    return {
      maxPageSize: this.options.maxPageSize,
      timestampPrecision: this.options.timestampPrecision,
      isdocReadyDelayMs: this.options.isdocReadyDelayMs,
      tokenLifetimeSeconds: this.options.tokenLifetimeSeconds,
    };
  }

  applySettings(input: z.output<typeof settingsSchema>): void {
    this.options = {
      ...this.options,
      ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
    };
    this.auth.tokenLifetimeSeconds = this.options.tokenLifetimeSeconds;
    for (const { state } of this.companies.active())
      state.settings.precision = this.options.timestampPrecision;
  }
}
