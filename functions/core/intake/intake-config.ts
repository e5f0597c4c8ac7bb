/**
 * Settings of the e-shop order intake, read once from the environment with zod: the signing
 * secrets (a source without one is disabled) and the mapping options — one section, documented
 * in docs/intake.md. Errors name the variable and what was expected, never a value.
 */
import * as z from 'zod';
import { ConfigError, type Env, parseEnvSection } from '#functions/shared/config.js';
import { ENV } from '#functions/shared/env-names.js';
import { INTAKE_ENV } from '#functions/shared/intake-env-names.js';
import { connectionEventSource, connectionSchema, DEFAULT_CONNECTION } from '../connection.js';
import type { IntakeSource } from './shop-order.js';
import { checkStandardSecret } from './signatures.js';

export const orderNumberFields = ['Doklad', 'Text', 'Note'] as const;
export type OrderNumberField = (typeof orderNumberFields)[number];
export const partnerMatchers = ['registration-number', 'email'] as const;
export type PartnerMatcher = (typeof partnerMatchers)[number];

const list = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((v) =>
      (v ?? fallback)
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    );
const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a positive integer' })
    .int()
    .positive()
    .optional()
    .transform((v) => v ?? fallback);
const bytesUpTo = (fallback: number, max: number, what: string) =>
  z.coerce
    .number({ error: `expected a whole number of bytes up to ${max} (${what})` })
    .int({ error: `expected a whole number of bytes up to ${max} (${what})` })
    .min(1024, { error: `expected at least 1024 bytes (${what})` })
    .max(max, { error: `expected at most ${max} bytes (${what})` })
    .optional()
    .transform((v) => v ?? fallback);

/**
 * The default and the most the body limit may be: 4 MiB, which base64-encoded (4/3) with the
 * request's headers still fits Lambda's 6 MB synchronous invocation payload; an HTTP API takes
 * 10 MB. A 250-line Shopify order is about a third of a megabyte.
 */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** SQS's message size: a larger queue message is claim-checked (core/intake/order-claim-check.ts). */
export const MAX_QUEUE_MESSAGE_BYTES = 256 * 1024;

/** Shoptet's API (the fetcher's default base URL). */
export const DEFAULT_SHOPTET_API_URL = 'https://api.myshoptet.com';

const secret = z.string().min(16, { error: 'expected at least 16 characters' }).optional();

const envSchema = z.object({
  [ENV.connection]: connectionSchema.default(DEFAULT_CONNECTION),
  [ENV.eventSource]: z.string().min(1).max(256).optional(),
  [ENV.serviceVariant]: z.string().optional(),
  [INTAKE_ENV.shopifySecret]: secret,
  [INTAKE_ENV.woocommerceSecret]: secret,
  [INTAKE_ENV.genericSecret]: secret.superRefine((v, ctx) => {
    if (v === undefined) return;
    try {
      checkStandardSecret(v);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
    }
  }),
  [INTAKE_ENV.shoptetSignatureKey]: secret,
  [INTAKE_ENV.shoptetApiUrl]: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
    .default(DEFAULT_SHOPTET_API_URL),
  [INTAKE_ENV.shoptetToken]: secret,
  [INTAKE_ENV.shoptetTokenKind]: z
    .enum(['private', 'access'], { error: 'expected private or access' })
    .default('private'),
  [INTAKE_ENV.shoptetSweepSeconds]: z.coerce
    .number({ error: 'expected a whole number of seconds (0 = no sweep)' })
    .int({ error: 'expected a whole number of seconds (0 = no sweep)' })
    .min(0, { error: 'expected a whole number of seconds (0 = no sweep)' })
    .default(900),
  [INTAKE_ENV.shoptetWebhookUrl]: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
    .optional(),
  [INTAKE_ENV.shoptetReregister]: z
    .enum(['true', 'false'], { error: 'expected true or false' })
    .default('false'),
  [INTAKE_ENV.maxBodyBytes]: bytesUpTo(MAX_BODY_BYTES, MAX_BODY_BYTES, 'a Lambda invocation carries 6 MB'),
  [INTAKE_ENV.maxQueueMessageBytes]: bytesUpTo(
    MAX_QUEUE_MESSAGE_BYTES,
    1024 * 1024,
    'an SQS message carries up to 1 MiB',
  ),
  [INTAKE_ENV.orderNumberField]: z
    .enum(orderNumberFields, { error: 'expected Doklad, Text or Note' })
    .optional(),
  [INTAKE_ENV.orderText]: z
    .string()
    .min(1)
    .max(200)
    .default('E-shop order {number}')
    .refine((t) => t.includes('{number}'), 'expected a template containing {number}'),
  // Off by default: both come from the customer's checkout input (docs/intake.md).
  [INTAKE_ENV.partnerMatch]: list('none').pipe(
    z.array(z.enum([...partnerMatchers, 'none'], { error: 'expected registration-number, email or none' })),
  ),
  [INTAKE_ENV.homeCurrency]: z
    .string()
    .regex(/^[A-Z]{3}$/, { error: 'expected an ISO 4217 currency code such as EUR' })
    .optional(),
  [INTAKE_ENV.matchPriceList]: z.enum(['true', 'false'], { error: 'expected true or false' }).default('true'),
  [INTAKE_ENV.shippingCode]: z.string().min(1).max(64).default('SHIPPING'),
  [INTAKE_ENV.paymentFeeCode]: z.string().min(1).max(64).default('PAYMENT'),
  [INTAKE_ENV.registrationNumberFields]: list('ico,billing_ico,_billing_ico,company_registration_number'),
  [INTAKE_ENV.vatNumberFields]: list('ic_dph,billing_ic_dph,_billing_ic_dph,vat_number'),
  [INTAKE_ENV.referenceCacheSeconds]: positiveInt(300),
  [INTAKE_ENV.secretsCacheSeconds]: positiveInt(300),
  [INTAKE_ENV.secretsGraceSeconds]: positiveInt(900),
  // The import's idempotency records last this long: an older order could be imported again.
  [ENV.actionsIdempotencyExpiresSeconds]: z.coerce
    .number({ error: 'expected a positive integer' })
    .int()
    .positive()
    .optional(),
  [INTAKE_ENV.lookbackSeconds]: positiveInt(3600),
});

export interface MappingOptions {
  /** Where the shop's order number goes: `Doklad` (Slovak contract), else the text or the note. */
  orderNumberField: OrderNumberField;
  /** `Text` of the received order; `{number}` is the shop's order number. */
  orderText: string;
  /**
   * How the partner is looked up in the address book, in order; empty (the default) = always a
   * document address. Every matcher reads data the customer typed: a linked order is marked.
   */
  partnerMatch: PartnerMatcher[];
  /** Orders in this currency carry no `CurrencyId` (the service uses its home currency). */
  homeCurrency: string;
  /** Lines whose SKU equals a price-list item's code become price-list items. */
  matchPriceList: boolean;
  shippingCode: string;
  paymentFeeCode: string;
  /** Checkout fields (Shopify note attributes, WooCommerce meta keys) with the IČO / IČ DPH. */
  registrationNumberFields: string[];
  vatNumberFields: string[];
}

/** Where Shoptet orders are fetched from (a notification carries only the order's code). */
export interface ShoptetApiSettings {
  baseUrl: string;
  /** The private API token (Premium) or an add-on's access token; unset = no fetching. Never logged. */
  token?: string;
  /** `private` → `Shoptet-Private-API-Token`, `access` → `Shoptet-Access-Token`. */
  tokenKind: 'private' | 'access';
  /** How often the reconciliation sweep runs (0 = never). */
  sweepSeconds: number;
  /** The intake's URL the shop's webhooks should point at (`…/intake/shoptet`); unset = not checked. */
  webhookUrl?: string;
  /** The sweep registers missing webhooks (else it only reports them). */
  reregisterWebhooks: boolean;
}

export interface IntakeConfig {
  connection: string;
  /** `source` of the intake's events: `EVENT_SOURCE`, else `accounting.<connection>`. */
  eventSource: string;
  /** Sources with a secret; the others answer 404. Never logged. */
  secrets: Partial<Record<IntakeSource, string>>;
  maxBodyBytes: number;
  shoptet: ShoptetApiSettings;
  /** A queue message over this is claim-checked: the order goes to the object store. */
  maxQueueMessageBytes: number;
  mapping: MappingOptions;
  referenceCacheSeconds: number;
  /** Secrets Manager: how long the signing secrets are reused, and a rotated one's grace. */
  secretsCacheSeconds: number;
  secretsGraceSeconds: number;
  /**
   * The import refuses an order created longer ago than this (its idempotency record may be gone,
   * so a replayed delivery would import it again); unset = no horizon (records never expire).
   */
  replayHorizonSeconds?: number;
  /** How far before the shop's order date the import looks for an order it created already. */
  lookbackSeconds: number;
}

/** The intake's section; throws `ConfigError` naming every malformed key (never a secret's value). */
export function loadIntakeConfig(env: Env): IntakeConfig {
  const e = parseEnvSection(envSchema, env);
  // The Czech variant's create DTO has no `Doklad` (and refuses unknown fields): the note holds the number.
  const czech = e[ENV.serviceVariant]?.trim().toLowerCase() === 'cz';
  const orderNumberField = e[INTAKE_ENV.orderNumberField] ?? (czech ? 'Note' : 'Doklad');
  if (czech && orderNumberField === 'Doklad') {
    throw new ConfigError([
      {
        field: INTAKE_ENV.orderNumberField,
        expected: 'the cz variant has no Doklad on received orders; expected Text or Note',
      },
    ]);
  }
  const secrets: Partial<Record<IntakeSource, string>> = {};
  if (e[INTAKE_ENV.shopifySecret]) secrets.shopify = e[INTAKE_ENV.shopifySecret];
  if (e[INTAKE_ENV.woocommerceSecret]) secrets.woocommerce = e[INTAKE_ENV.woocommerceSecret];
  if (e[INTAKE_ENV.genericSecret]) secrets.generic = e[INTAKE_ENV.genericSecret];
  if (e[INTAKE_ENV.shoptetSignatureKey]) secrets.shoptet = e[INTAKE_ENV.shoptetSignatureKey];
  const token = e[INTAKE_ENV.shoptetToken];
  const match = e[INTAKE_ENV.partnerMatch];
  return {
    connection: e[ENV.connection],
    eventSource: connectionEventSource({ name: e[ENV.connection], source: e[ENV.eventSource] }),
    secrets,
    maxBodyBytes: e[INTAKE_ENV.maxBodyBytes],
    shoptet: {
      baseUrl: e[INTAKE_ENV.shoptetApiUrl].replace(/\/+$/, ''),
      ...(token ? { token } : {}),
      tokenKind: e[INTAKE_ENV.shoptetTokenKind],
      sweepSeconds: e[INTAKE_ENV.shoptetSweepSeconds],
      ...(e[INTAKE_ENV.shoptetWebhookUrl] ? { webhookUrl: e[INTAKE_ENV.shoptetWebhookUrl] } : {}),
      reregisterWebhooks: e[INTAKE_ENV.shoptetReregister] === 'true',
    },
    maxQueueMessageBytes: e[INTAKE_ENV.maxQueueMessageBytes],
    mapping: {
      orderNumberField,
      orderText: e[INTAKE_ENV.orderText],
      partnerMatch: match.includes('none') ? [] : (match as PartnerMatcher[]),
      homeCurrency: e[INTAKE_ENV.homeCurrency] ?? (czech ? 'CZK' : 'EUR'),
      matchPriceList: e[INTAKE_ENV.matchPriceList] === 'true',
      shippingCode: e[INTAKE_ENV.shippingCode],
      paymentFeeCode: e[INTAKE_ENV.paymentFeeCode],
      registrationNumberFields: e[INTAKE_ENV.registrationNumberFields],
      vatNumberFields: e[INTAKE_ENV.vatNumberFields],
    },
    referenceCacheSeconds: e[INTAKE_ENV.referenceCacheSeconds],
    secretsCacheSeconds: e[INTAKE_ENV.secretsCacheSeconds],
    secretsGraceSeconds: e[INTAKE_ENV.secretsGraceSeconds],
    ...(e[ENV.actionsIdempotencyExpiresSeconds] !== undefined
      ? { replayHorizonSeconds: e[ENV.actionsIdempotencyExpiresSeconds] }
      : {}),
    lookbackSeconds: e[INTAKE_ENV.lookbackSeconds],
  };
}
