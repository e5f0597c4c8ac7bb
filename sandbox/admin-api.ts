/**
 * The sandbox's admin API under `/_sandbox/`: state (reset, seed, ground truth, record edits and
 * deletions), faults, settings, request counters, the e-invoicing outbox and sendings, and the
 * activity generator. One handler per `METHOD resource`; `?company=k` addresses company k's data
 * (default 1).
 */
import * as z from 'zod';
import { findCollection } from '../functions/accounting/collections.js';
import type { ActivityGenerator } from './activity.js';
import { type Companies, type Company, companyCredentials } from './company.js';
import type { FaultEngine } from './faults.js';
import { json, notFound, ProblemError, parseJsonBody, problemReply, type Reply } from './http.js';
import { type Faults, faultsSchema, type ResolvedSandboxOptions } from './options.js';
import type { RequestCounts } from './request-counts.js';
import { validate } from './validation.js';

export const settingsSchema = z
  .object({
    maxPageSize: z.number().int().positive(),
    timestampPrecision: z.enum(['ms', 's']),
    isdocReadyDelayMs: z.number().min(0),
    tokenLifetimeSeconds: z.number().int().positive(),
  })
  .partial()
  .strict();
export type SettingsPatch = z.output<typeof settingsSchema>;

const seedSchema = z
  .object({
    seed: z.number().int(),
    documents: z.number().int().min(0),
    partners: z.number().int().min(1),
    perCollection: z.record(z.string(), z.number().int().min(0)),
  })
  .partial()
  .strict();

const activitySchema = z
  .object({
    count: z.number().int().min(1).max(10_000).default(1),
    ratePerSecond: z.number().min(0).optional(),
  })
  .strict();

/** What the admin API acts on: the sandbox server. */
export interface AdminTarget {
  options: ResolvedSandboxOptions;
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly companies: Companies;
  readonly faults: FaultEngine;
  readonly activity: ActivityGenerator;
  reset(): void;
  setFaults(patch: Record<string, unknown>): void;
  replaceFaults(faults: Faults): void;
  settings(): Required<SettingsPatch>;
  applySettings(input: SettingsPatch): void;
  requestCounts(): RequestCounts;
  resetRequestCounts(): void;
}

interface AdminRequest {
  /** The path after `/_sandbox`, decoded: `[resource, ...rest]`. */
  parts: string[];
  /** Query parameters by lower-case name (the first of each). */
  query: Map<string, string>;
  /** The JSON body (`{}` when empty). */
  body: () => unknown;
  /** The company addressed (`?company=k`, default 1). */
  company: Company;
}

type AdminHandler = (s: AdminTarget, r: AdminRequest) => Reply;

function queryMap(url: URL): Map<string, string> {
  const map = new Map<string, string>();
  for (const [k, v] of url.searchParams) if (!map.has(k.toLowerCase())) map.set(k.toLowerCase(), v);
  return map;
}

const overview: AdminHandler = (s, { company: { state, index } }) =>
  json(200, {
    baseUrl: s.baseUrl,
    authUrl: s.authUrl,
    credentials: companyCredentials(index, state.settings.variant),
    variant: state.settings.variant,
    seed: state.settings.seed,
    companies: s.companies.count,
    company: index,
    counts: state.counts(),
    settings: s.settings(),
    activity: { running: s.activity.running },
    memory: { rssMb: Math.round(process.memoryUsage().rss / 1048576) },
  });

const reseed: AdminHandler = (s, r) => {
  const { state, domain, index } = r.company;
  const input = validate(seedSchema, r.body());
  s.options = {
    ...s.options,
    seed: input.seed ?? s.options.seed,
    sizes: {
      documents: input.documents ?? s.options.sizes.documents,
      partners: input.partners ?? s.options.sizes.partners,
      perCollection: input.perCollection ?? s.options.sizes.perCollection,
    },
  };
  state.reseed({
    seed: s.options.seed + index - 1,
    documents: s.options.sizes.documents,
    partners: s.options.sizes.partners,
    perCollection: s.options.sizes.perCollection,
  });
  domain.reset();
  return json(200, { seed: s.options.seed, counts: state.counts() });
};

const patchFaults: AdminHandler = (s, r) => {
  s.setFaults(validate(faultsSchema.partial(), r.body()));
  return json(200, s.faults.faults);
};

const putSettings: AdminHandler = (s, r) => {
  s.applySettings(validate(settingsSchema, r.body()));
  return json(200, s.settings());
};

const groundTruth: AdminHandler = (_s, { query: q, company: { state } }) => {
  const versions = state.groundTruth({
    ...(q.get('collection') ? { collection: q.get('collection') as string } : {}),
    ...(q.get('id') ? { id: q.get('id') as string } : {}),
    includeSeed: q.get('includeseed') !== 'false',
    copies: q.get('copies') === 'true',
  });
  return json(200, { count: versions.length, versions });
};

const deleteRecord: AdminHandler = (_s, { parts, company: { state } }) => {
  const collection = findCollection(parts[1] ?? '', state.settings.variant);
  if (!collection || !parts[2]) throw notFound();
  if (!state.remove(collection.name, parts[2])) throw notFound();
  return json(200, { deleted: true, collection: collection.name, id: parts[2].toLowerCase() });
};

const editRecord: AdminHandler = (_s, { parts, body, company: { state, domain } }) => {
  const collection = findCollection(parts[1] ?? '', state.settings.variant);
  if (!collection || collection.kind === 'reference' || !parts[2]) throw notFound();
  const patch = body();
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new ProblemError(400, { $: ['The body must be a JSON object of fields to set.'] });
  }
  const updated = domain.touch(collection.name, parts[2], patch as Record<string, unknown>);
  if (!updated) throw notFound();
  return json(200, updated);
};

const activity: AdminHandler = (s, { parts, body, company: { domain } }) => {
  const input = validate(activitySchema, body());
  if (parts[1] === 'start' || parts[1] === 'stop') {
    if (parts[1] === 'start') s.activity.start(input.ratePerSecond ?? s.options.activity.ratePerSecond);
    else s.activity.stop();
    return json(200, { running: s.activity.running });
  }
  const actions = [];
  for (let i = 0; i < input.count; i++) actions.push(s.activity.tick(domain));
  return json(200, { actions });
};

const handlers = new Map<string, AdminHandler>([
  ['GET ', overview],
  [
    'POST reset',
    (s, { company }) => {
      s.reset();
      return json(200, { reset: true, counts: company.state.counts() });
    },
  ],
  ['POST seed', reseed],
  ['GET faults', (s) => json(200, s.faults.faults)],
  ['PUT faults', patchFaults],
  ['POST faults', patchFaults],
  ['PATCH faults', patchFaults],
  [
    'DELETE faults',
    (s) => {
      s.replaceFaults(faultsSchema.parse({}));
      return json(200, s.faults.faults);
    },
  ],
  ['GET settings', (s) => json(200, s.settings())],
  ['PUT settings', putSettings],
  ['POST settings', putSettings],
  ['GET ground-truth', groundTruth],
  ['DELETE records', deleteRecord],
  ['POST edit', editRecord],
  ['GET requests', (s) => json(200, s.requestCounts())],
  [
    'DELETE requests',
    (s) => {
      s.resetRequestCounts();
      return json(200, s.requestCounts());
    },
  ],
  ['GET outbox', (_s, { company: { domain } }) => json(200, { messages: domain.outbox })],
  // Ground truth of the payments made since the start: every liquidation with the rest it left, and
  // every due date that passed with something to pay (recorded up to now by this read).
  [
    'GET payments',
    (_s, { company: { domain } }) => {
      domain.liquidations.sweepOverdue();
      return json(200, {
        payments: domain.liquidations.payments,
        dueDatePasses: domain.liquidations.dueDatePasses,
      });
    },
  ],
  [
    'DELETE outbox',
    (_s, { company: { domain } }) => {
      domain.outbox = [];
      return json(200, { messages: [] });
    },
  ],
  [
    'GET sendings',
    (_s, { company: { domain } }) =>
      json(200, { sendings: [...domain.sendings.keys()].map((id) => domain.eInvoiceStatus(id)) }),
  ],
  ['POST activity', activity],
  // E-invoicing ground truth: the network's own verdict on every issued invoice as it is now.
  ['GET einvoicing', (_s, { company: { domain } }) => json(200, { invoices: domain.einvoicingTruth() })],
]);

function adminCompany(companies: Companies, value: string | undefined): Company {
  if (value === undefined) return companies.get(1);
  const index = Number(value);
  if (!Number.isInteger(index) || index < 1 || index > companies.count) {
    throw new ProblemError(404, undefined, `no company '${value}' (1…${companies.count})`);
  }
  return companies.get(index);
}

/** The admin API's answer to one request. */
export function adminReply(s: AdminTarget, method: string, url: URL, raw: Buffer): Reply {
  const parts = url.pathname.split('/').filter(Boolean).slice(1).map(decodeURIComponent);
  const query = queryMap(url);
  const company = adminCompany(s.companies, query.get('company'));
  const handler = handlers.get(`${method} ${parts[0] ?? ''}`);
  if (!handler) return problemReply(404);
  return handler(s, { parts, query, body: () => parseJsonBody(raw, false) ?? {}, company });
}
