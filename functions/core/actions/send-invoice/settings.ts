/**
 * The sending's settings (`config.sending`): which partners get their invoices by e-invoicing or
 * by e-mail, where an invoice names its partner, the e-mail subject, and how long the tracker
 * (`track-einvoices`) follows a sending.
 */
import * as z from 'zod';
import { defineActionSettings, list, positiveInt, type SectionOf } from '../action-settings.js';

export interface EmailPartner {
  /** Value of the partner field (see `partnerField`) that selects this rule. */
  key: string;
  /** Fixed recipient; when absent the document's own e-mail address is used. */
  to?: string;
}

/**
 * How a connection chooses the e-invoicing channel: `mandate-sk` (Slovakia from 2027: a domestic
 * partner with a DIČ gets the e-invoice, the partner lists override), `lists` (only the partners
 * listed), `off` (no e-invoicing).
 */
export const einvoicingPolicies = ['mandate-sk', 'lists', 'off'] as const;
export type EInvoicingPolicy = (typeof einvoicingPolicies)[number];

/** The policy of a variant when the connection sets none: the mandate in Slovakia, the lists elsewhere. */
export function defaultEInvoicingPolicy(variant: string): EInvoicingPolicy {
  return variant === 'sk' ? 'mandate-sk' : 'lists';
}

export const DEFAULT_PARTNER_FIELD = 'BusinessPartnerAddress.IdentificationNumber';
export const DEFAULT_EMAIL_SUBJECT = 'Invoice {DocumentNumber}';

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

export const sendingSettings = defineActionSettings(
  'sending',
  {
    ACTIONS_EINVOICING: {
      schema: z
        .enum(einvoicingPolicies, { error: `expected one of ${einvoicingPolicies.join(', ')}` })
        .optional(),
      default: '`mandate-sk` for `sk`, `lists` for `cz`',
      description:
        'how the e-invoicing channel is chosen: `mandate-sk` (Slovak partners with a DIČ, after the pre-flight), `lists`, `off` (docs/einvoicing.md)',
    },
    ACTIONS_EINVOICING_FALLBACK: {
      schema: z.enum(['email', 'none'], { error: 'expected email or none' }).default('none'),
      default: '`none`',
      description: 'under `mandate-sk`, what a partner without a DIČ or abroad gets: `email` or `none`',
    },
    ACTIONS_EINVOICE_PARTNERS: {
      schema: list,
      default: '— (locally under `lists`: every partner)',
      description: 'partner keys whose invoices go through e-invoicing (overrides under `mandate-sk`)',
    },
    ACTIONS_EMAIL_PARTNERS: {
      schema: emailPartners,
      default: '—',
      description: '`key` or `key=address` whose invoices go by e-mail',
    },
    ACTIONS_PARTNER_FIELD: {
      schema: z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$/, {
          error: 'expected a dotted field path such as BusinessPartnerAddress.IdentificationNumber',
        })
        .optional(),
      default: `\`${DEFAULT_PARTNER_FIELD}\``,
      description: 'where an invoice names its partner key',
    },
    ACTIONS_EMAIL_SUBJECT: {
      schema: z.string().min(1).optional(),
      default: `\`${DEFAULT_EMAIL_SUBJECT}\``,
      description: 'e-mail subject template',
    },
    ACTIONS_EINVOICE_TRACKING_DEADLINE_SECONDS: {
      schema: positiveInt(7 * 24 * 3600),
      default: '604800',
      description: 'stop tracking a sending after this',
    },
    ACTIONS_EINVOICE_MAX_OPEN: {
      schema: positiveInt(10_000),
      default: '10000',
      description: 'the tracker warns above this many open sendings of its connection',
    },
  },
  (e) => ({
    /** Dotted path of the partner key in an invoice record. */
    partnerField: e.ACTIONS_PARTNER_FIELD ?? DEFAULT_PARTNER_FIELD,
    /** The e-invoicing policy the connection sets (`einvoicingPolicy` adds the variant's default). */
    einvoicing: e.ACTIONS_EINVOICING as EInvoicingPolicy | undefined,
    /** Under `mandate-sk`, what a partner without a DIČ or abroad gets. */
    mandateFallback: e.ACTIONS_EINVOICING_FALLBACK,
    einvoicePartners: e.ACTIONS_EINVOICE_PARTNERS,
    emailPartners: e.ACTIONS_EMAIL_PARTNERS,
    emailSubject: e.ACTIONS_EMAIL_SUBJECT ?? DEFAULT_EMAIL_SUBJECT,
    trackingDeadlineSeconds: e.ACTIONS_EINVOICE_TRACKING_DEADLINE_SECONDS,
    maxOpenSendings: e.ACTIONS_EINVOICE_MAX_OPEN,
  }),
  (e, ctx) => {
    const einvoice = new Set(e.ACTIONS_EINVOICE_PARTNERS);
    for (const p of e.ACTIONS_EMAIL_PARTNERS) {
      if (einvoice.has(p.key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['ACTIONS_EMAIL_PARTNERS'],
          message: `partner '${p.key}' is configured for both e-invoicing and e-mail; choose one channel`,
        });
      }
    }
  },
);

declare module '../config.js' {
  interface ActionSections {
    sending: SectionOf<typeof sendingSettings>;
  }
}
