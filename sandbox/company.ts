/**
 * Companies of one sandbox (`--companies N`): each its own seeded data (the run's seed plus its
 * index minus one, so company 1 is the single-company sandbox's data) and its own credentials.
 * Company 1 is built at start; the others on their first request, so a sandbox of a thousand
 * companies costs only what its clients touch. Credentials are deterministic test fixtures:
 * company 1 has the demo credentials, company k ≥ 2 `sandbox-k-api-key`, `sandbox-k-client` /
 * `sandbox-k-secret` and their read-only twins. They grant access to that company's data only.
 */
import type { ServiceVariant } from '../functions/accounting/collections.js';
import { variantPresets } from '../functions/accounting/config.js';
import { ApiOperations } from './api-operations.js';
import { Domain } from './domain.js';
import { DEMO_CREDENTIALS, type ResolvedSandboxOptions, type SandboxClock } from './options.js';
import { SandboxState } from './state.js';

export interface SandboxCredentials {
  apiKey: string;
  readOnlyApiKey: string;
  clientId: string;
  clientSecret: string;
  readOnlyClientId: string;
  readOnlyClientSecret: string;
  scope: string;
}

/** The OAuth scope the sandbox of a variant grants: the variant's own (`Mph.OpenApi.Access.Cz` in cz). */
export function sandboxScope(variant: ServiceVariant): string {
  return variantPresets[variant].scope;
}

/** The credentials of company `index` (1-based) of a sandbox of `variant`. */
export function companyCredentials(index: number, variant: ServiceVariant = 'sk'): SandboxCredentials {
  const scope = sandboxScope(variant);
  if (index === 1) return { ...DEMO_CREDENTIALS, scope };
  const p = `sandbox-${index}`;
  return {
    apiKey: `${p}-api-key`,
    readOnlyApiKey: `${p}-readonly-api-key`,
    clientId: `${p}-client`,
    clientSecret: `${p}-secret`,
    readOnlyClientId: `${p}-readonly-client`,
    readOnlyClientSecret: `${p}-readonly-secret`,
    scope,
  };
}

/** Per-company sizes when a sandbox serves more than one company and no sizes were given. */
export const MANY_COMPANIES_SIZES = { documents: 40, partners: 8, perCollection: {} } as const;

export class Company {
  readonly state: SandboxState;
  readonly domain: Domain;
  readonly operations: ApiOperations;

  constructor(
    readonly index: number,
    options: () => ResolvedSandboxOptions,
    clock: SandboxClock,
  ) {
    const o = options();
    this.state = new SandboxState(
      {
        variant: o.variant,
        seed: o.seed + index - 1,
        documents: o.sizes.documents,
        partners: o.sizes.partners,
        perCollection: o.sizes.perCollection,
        precision: o.timestampPrecision,
        anchorMs: Date.parse(o.seedAnchor),
        clockSkewMs: o.faults.clockSkewMs,
        lateVisibilityMs: o.faults.lateVisibilityMs,
      },
      clock,
    );
    this.domain = new Domain(this.state, options);
    this.operations = new ApiOperations(this.state, this.domain, options);
  }
}

/** The companies of a sandbox, built on first use. */
export class Companies {
  private readonly built = new Map<number, Company>();
  private nextActive = 0;

  constructor(
    readonly count: number,
    private readonly options: () => ResolvedSandboxOptions,
    private readonly clock: SandboxClock,
  ) {
    this.get(1);
  }

  /** Company `index` (1…count), seeded now if this is its first use. */
  get(index: number): Company {
    if (!Number.isInteger(index) || index < 1 || index > this.count) {
      throw new RangeError(`no company ${index} (1…${this.count})`);
    }
    let company = this.built.get(index);
    if (!company) {
      company = new Company(index, this.options, this.clock);
      this.built.set(index, company);
    }
    return company;
  }

  /** The companies seeded so far. */
  active(): Company[] {
    return [...this.built.values()];
  }

  /** The seeded companies in turn (the activity generator spreads its actions over them). */
  nextInTurn(): Company {
    const active = this.active();
    this.nextActive = (this.nextActive + 1) % active.length;
    return active[this.nextActive] as Company;
  }
}
