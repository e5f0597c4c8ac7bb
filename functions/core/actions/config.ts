/**
 * Settings of the actions, read once from the environment with zod. Every key is optional with a
 * documented default except resource names, which the handler that needs them asks for
 * (`requireSetting`). Pure: it receives the environment as a plain object.
 */
import * as z from 'zod';
import {
  DEFAULT_SERVICE_VARIANT,
  type ServiceVariant,
  serviceVariants,
} from '../../accounting/collections.js';
import { ConfigError, type Env, parseEnvSection } from '../../shared/config.js';
import { ENV } from '../../shared/env-names.js';
import { connectionEventSource, connectionSchema, DEFAULT_CONNECTION } from '../connection.js';

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
      error: 'expected one of true, false, 1, 0, yes, no, on, off',
    })
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v)));

const positiveInt = (fallback: number) =>
  z.coerce
    .number({ error: 'expected a positive integer' })
    .int({ error: 'expected a positive integer' })
    .positive({ error: 'expected a positive integer' })
    .optional()
    .transform((v) => v ?? fallback);

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

/** `key` or `key=address`: a partner that gets its invoices by e-mail, optionally to a fixed address. */
const emailPartners = list.transform((entries, ctx) => {
  const out: EmailPartner[] = [];
  for (const entry of entries) {
    const [key, to] = entry.split('=', 2).map((s) => s.trim());
    if (!key) {
      ctx.addIssue({ code: 'custom', message: `expected 'partner' or 'partner=address', got '${entry}'` });
      continue;
    }
    if (to !== undefined && !/^[^@\s]+@[^@\s]+$/.test(to)) {
      ctx.addIssue({ code: 'custom', message: `expected an e-mail address after '=' for partner '${key}'` });
      continue;
    }
    out.push(to ? { key, to } : { key });
  }
  return out;
});

/** Days overdue of the two reminder stages by default. */
export const DEFAULT_REMINDER_DAYS = { first: 7, second: 21 } as const;

const reminderDays = (fallback: number) =>
  z.coerce
    .number({ error: 'expected whole days overdue (1…365)' })
    .int({ error: 'expected whole days overdue (1…365)' })
    .min(1, { error: 'expected whole days overdue (1…365)' })
    .max(365, { error: 'expected whole days overdue (1…365)' })
    .optional()
    .transform((v) => v ?? fallback);

/**
 * How a connection chooses the e-invoicing channel: `mandate-sk` (Slovakia from 2027: a domestic
 * partner with a DIČ gets the e-invoice, the partner lists override), `lists` (only the partners
 * listed), `off` (no e-invoicing).
 */
export const einvoicingPolicies = ['mandate-sk', 'lists', 'off'] as const;
export type EInvoicingPolicy = (typeof einvoicingPolicies)[number];

/** The policy of a variant when the connection sets none: the mandate in Slovakia, the lists elsewhere. */
export function defaultEInvoicingPolicy(variant: ServiceVariant): EInvoicingPolicy {
  return variant === 'sk' ? 'mandate-sk' : 'lists';
}

export interface EmailPartner {
  /** Value of the partner field (see `partnerField`) that selects this rule. */
  key: string;
  /** Fixed recipient; when absent the document's own e-mail address is used. */
  to?: string;
}

const envSchema = z
  .object({
    [ENV.connection]: connectionSchema.default(DEFAULT_CONNECTION),
    [ENV.serviceVariant]: z
      .string()
      .optional()
      .transform((v) => v?.trim().toLowerCase() || undefined)
      .pipe(
        z
          .enum(serviceVariants, { error: `expected one of ${serviceVariants.join(', ')}` })
          .default(DEFAULT_SERVICE_VARIANT),
      ),
    [ENV.actionsTransferReceivedOrderToIssuedInvoice]: flag(true),
    [ENV.eventSource]: z.string().min(1).optional(),
    [ENV.actionsTransferReceivedOrderToIssueSlip]: flag(true),
    [ENV.actionsTransferIssueSlipToIssuedInvoice]: flag(true),
    [ENV.actionsTransferIssuedOfferToReceivedOrder]: flag(false),
    [ENV.actionsTransferIssuedOrderToReceivedInvoice]: flag(false),
    [ENV.actionsIsdocArchive]: flag(true),
    [ENV.actionsIsdocPdf]: flag(false),
    [ENV.actionsIsdocSchemaStrict]: flag(false),
    [ENV.actionsIsdocMaxBytes]: positiveInt(10 * 1024 * 1024),
    [ENV.actionsIsdocNotReadyAttempts]: positiveInt(3),
    [ENV.actionsIsdocNotReadyDelayMs]: positiveInt(2000),
    [ENV.actionsIsdocNotReadyDeadlineSeconds]: positiveInt(3600),
    [ENV.actionsEInvoicePartners]: list,
    [ENV.actionsEmailPartners]: emailPartners,
    [ENV.actionsPartnerField]: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$/, {
        error: 'expected a dotted field path such as BusinessPartnerAddress.IdentificationNumber',
      })
      .optional(),
    [ENV.actionsEmailSubject]: z.string().min(1).optional(),
    [ENV.actionsEInvoicing]: z
      .enum(einvoicingPolicies, { error: `expected one of ${einvoicingPolicies.join(', ')}` })
      .optional(),
    [ENV.actionsEInvoicingFallback]: z
      .enum(['email', 'none'], { error: 'expected email or none' })
      .default('none'),
    [ENV.actionsEInvoiceTrackingDeadlineSeconds]: positiveInt(7 * 24 * 3600),
    [ENV.actionsEInvoiceMaxOpen]: positiveInt(10_000),
    [ENV.actionsIdempotencyTable]: z.string().min(1).optional(),
    [ENV.actionsIdempotencyExpiresSeconds]: positiveInt(7 * 24 * 3600),
    [ENV.actionsArchiveBucket]: z.string().min(1).optional(),
    [ENV.actionsStateTable]: z.string().min(1).optional(),
    [ENV.actionsReferenceLookbackSeconds]: positiveInt(300),
    [ENV.actionsPaymentReminders]: flag(false),
    [ENV.actionsPaymentReminderFirstDays]: reminderDays(DEFAULT_REMINDER_DAYS.first),
    [ENV.actionsPaymentReminderSecondDays]: reminderDays(DEFAULT_REMINDER_DAYS.second),
    [ENV.actionsPaymentReminderSubject]: z
      .string()
      .trim()
      .min(1, { error: 'expected a subject text' })
      .max(200, { error: 'expected a subject of at most 200 characters' })
      .optional(),
  })
  .superRefine((env, ctx) => {
    if (env[ENV.actionsPaymentReminderSecondDays] <= env[ENV.actionsPaymentReminderFirstDays]) {
      ctx.addIssue({
        code: 'custom',
        path: [ENV.actionsPaymentReminderSecondDays],
        message: `expected more days than ${ENV.actionsPaymentReminderFirstDays} (${env[ENV.actionsPaymentReminderFirstDays]})`,
      });
    }
    const einvoice = new Set(env[ENV.actionsEInvoicePartners]);
    for (const p of env[ENV.actionsEmailPartners]) {
      if (einvoice.has(p.key)) {
        ctx.addIssue({
          code: 'custom',
          path: [ENV.actionsEmailPartners],
          message: `partner '${p.key}' is configured for both e-invoicing and e-mail; choose one channel`,
        });
      }
    }
  });

/** The `ACTIONS_*` settings this module reads (a connection's `actions` may set only those it owns). */
export const actionSettingNames: readonly string[] = Object.keys(envSchema.shape).filter((k) =>
  k.startsWith('ACTIONS_'),
);

export type TransferStep =
  | 'receivedOrderToIssuedInvoice'
  | 'receivedOrderToIssueSlip'
  | 'issueSlipToIssuedInvoice'
  | 'issuedOfferToReceivedOrder'
  | 'issuedOrderToReceivedInvoice';

export interface ActionsConfig {
  /** Connection whose open sendings the scheduled tracker polls (events carry their own). */
  connection: string;
  /** Service variant: which transfer chain exists (`ACCOUNTING_SERVICE_VARIANT`). */
  variant: ServiceVariant;
  /**
   * The only event `source` the actions act on: the poller's (`EVENT_SOURCE`, else
   * `accounting.<connection>`). Routes match it; an event from any other source is invalid.
   */
  eventSource: string;
  transfers: Record<TransferStep, boolean>;
  isdoc: {
    enabled: boolean;
    pdf: boolean;
    /**
     * Refuse a document the ISDOC 6.0.2 schema rejects (`Action.Failed`, kept under `rejected/`)
     * instead of archiving it with the verdict `invalid` (`ACTIONS_ISDOC_SCHEMA_STRICT`).
     */
    schemaStrict: boolean;
    maxBytes: number;
    notReadyAttempts: number;
    notReadyDelayMs: number;
    notReadyDeadlineSeconds: number;
  };
  sending: {
    /** Dotted path of the partner key in an invoice record. */
    partnerField: string;
    /** How the e-invoicing channel is chosen (`ACTIONS_EINVOICING`). */
    einvoicing: EInvoicingPolicy;
    /** Under `mandate-sk`, what a partner without a DIČ or abroad gets (`ACTIONS_EINVOICING_FALLBACK`). */
    mandateFallback: 'email' | 'none';
    einvoicePartners: string[];
    emailPartners: EmailPartner[];
    emailSubject: string;
    trackingDeadlineSeconds: number;
    maxOpenSendings: number;
  };
  idempotency: { tableName?: string; expiresAfterSeconds: number };
  archiveBucket?: string;
  stateTable?: string;
  /** How far before the source's `ModifiedDate` to look for an existing target document. */
  referenceLookbackSeconds: number;
  /** Payment reminders of overdue issued (advance) invoices (docs/payments.md). */
  paymentReminders: {
    enabled: boolean;
    /** Days overdue before the first reminder, and before the second. */
    stageDays: readonly [number, number];
    subject: string;
  };
}

export const DEFAULT_PARTNER_FIELD = 'BusinessPartnerAddress.IdentificationNumber';
export const DEFAULT_EMAIL_SUBJECT = 'Invoice {DocumentNumber}';
export const DEFAULT_REMINDER_SUBJECT = 'Payment reminder: invoice {DocumentNumber}';

/** The actions' section; throws `ConfigError` naming every malformed key. */
export function loadActionsConfig(env: Env): ActionsConfig {
  const e = parseEnvSection(envSchema, env);
  return {
    connection: e[ENV.connection],
    variant: e[ENV.serviceVariant],
    eventSource: connectionEventSource({ name: e[ENV.connection], source: e[ENV.eventSource] }),
    transfers: {
      receivedOrderToIssuedInvoice: e[ENV.actionsTransferReceivedOrderToIssuedInvoice],
      receivedOrderToIssueSlip: e[ENV.actionsTransferReceivedOrderToIssueSlip],
      issueSlipToIssuedInvoice: e[ENV.actionsTransferIssueSlipToIssuedInvoice],
      issuedOfferToReceivedOrder: e[ENV.actionsTransferIssuedOfferToReceivedOrder],
      issuedOrderToReceivedInvoice: e[ENV.actionsTransferIssuedOrderToReceivedInvoice],
    },
    isdoc: {
      enabled: e[ENV.actionsIsdocArchive],
      pdf: e[ENV.actionsIsdocPdf],
      schemaStrict: e[ENV.actionsIsdocSchemaStrict],
      maxBytes: e[ENV.actionsIsdocMaxBytes],
      notReadyAttempts: e[ENV.actionsIsdocNotReadyAttempts],
      notReadyDelayMs: e[ENV.actionsIsdocNotReadyDelayMs],
      notReadyDeadlineSeconds: e[ENV.actionsIsdocNotReadyDeadlineSeconds],
    },
    sending: {
      partnerField: e[ENV.actionsPartnerField] ?? DEFAULT_PARTNER_FIELD,
      einvoicing: e[ENV.actionsEInvoicing] ?? defaultEInvoicingPolicy(e[ENV.serviceVariant]),
      mandateFallback: e[ENV.actionsEInvoicingFallback],
      einvoicePartners: e[ENV.actionsEInvoicePartners],
      emailPartners: e[ENV.actionsEmailPartners],
      emailSubject: e[ENV.actionsEmailSubject] ?? DEFAULT_EMAIL_SUBJECT,
      trackingDeadlineSeconds: e[ENV.actionsEInvoiceTrackingDeadlineSeconds],
      maxOpenSendings: e[ENV.actionsEInvoiceMaxOpen],
    },
    idempotency: {
      ...(e[ENV.actionsIdempotencyTable] ? { tableName: e[ENV.actionsIdempotencyTable] } : {}),
      expiresAfterSeconds: e[ENV.actionsIdempotencyExpiresSeconds],
    },
    ...(e[ENV.actionsArchiveBucket] ? { archiveBucket: e[ENV.actionsArchiveBucket] } : {}),
    ...(e[ENV.actionsStateTable] ? { stateTable: e[ENV.actionsStateTable] } : {}),
    referenceLookbackSeconds: e[ENV.actionsReferenceLookbackSeconds],
    paymentReminders: {
      enabled: e[ENV.actionsPaymentReminders],
      stageDays: [e[ENV.actionsPaymentReminderFirstDays], e[ENV.actionsPaymentReminderSecondDays]],
      subject: e[ENV.actionsPaymentReminderSubject] ?? DEFAULT_REMINDER_SUBJECT,
    },
  };
}

/** The defaults, as `loadActionsConfig({})` returns them. */
export function defaultActionsConfig(): ActionsConfig {
  return loadActionsConfig({});
}

/** Returns a resource name a handler cannot run without, or throws naming the env var. */
export function requireSetting(value: string | undefined, envName: string): string {
  if (value === undefined || value === '') {
    throw new ConfigError([
      { field: envName, expected: 'required by this function, expected a resource name' },
    ]);
  }
  return value;
}
