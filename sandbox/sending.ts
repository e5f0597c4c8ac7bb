/**
 * Sending documents (Slovak contract, assumed paths): by e-mail into an outbox, and through an
 * e-invoicing network with a status that moves over time.
 */
import * as z from 'zod';
import { findCollection } from '../functions/accounting/collections.js';
import { iso } from './documents.js';
import type { DomainContext } from './domain-context.js';
import { notFound, validationError } from './http.js';
import type { ResolvedSandboxOptions } from './options.js';
import { networkVerdict } from './peppol-network.js';
import { validate } from './validation.js';

const emailSchema = z.looseObject({
  To: z.union([z.email(), z.array(z.email()).min(1)]),
  Cc: z.union([z.email(), z.array(z.email())]).nullish(),
  Subject: z.string().nullish(),
  Body: z.string().nullish(),
  Language: z.enum(['Current', 'English']).nullish(),
});

export interface OutboxMessage {
  Id: string;
  Collection: string;
  DocumentId: string;
  DocumentNumber: string;
  To: string[];
  Cc: string[];
  Subject: string;
  Body: string;
  Attachment: { FileName: string; ContentType: string };
  SentAt: string;
}

export type TransportStatus = 'Queued' | 'Sent' | 'Delivered' | 'Rejected' | 'TransportFailed';
export type ResponseCode = 'AB' | 'IP' | 'UQ' | 'CA' | 'RE' | 'AP' | 'PD';

/** Message Level Status (Peppol MLS), what the Slovak leg answers instead of an Invoice Response. */
export type MlsCode = 'AP' | 'AB' | 'RE';
export type MlsReasonCode = 'SV' | 'BV' | 'BW' | 'FD';

export interface MlsReason {
  Code: MlsReasonCode;
  RuleIds: string[];
  Description: string;
}

interface SendingStep {
  atMs: number;
  Status: TransportStatus;
  ResponseCode: ResponseCode | null;
  mls?: { code: MlsCode; reasons: MlsReason[] };
}

/** Share of the Slovak deliveries the receiver's access point accepts without confirming (AB). */
const MLS_BLIND_SHARE = 0.2;
/** Share of the confirmed Slovak deliveries that carry a business warning (BW). */
const MLS_WARNING_SHARE = 0.05;

interface SendingRecord {
  SendingId: string;
  Collection: string;
  DocumentId: string;
  DocumentNumber: string;
  steps: SendingStep[];
}

const responseDescriptions: Record<ResponseCode, string> = {
  AB: 'Message acknowledgement',
  IP: 'In process',
  UQ: 'Under query',
  CA: 'Conditionally accepted',
  RE: 'Rejected',
  AP: 'Accepted',
  PD: 'Fully paid',
};

export const eInvoiceCollections = new Set([
  'IssuedInvoices',
  'IssuedAdvanceInvoices',
  'IssuedCreditNotes',
  'IssuedDebitNotes',
]);

export class Sending {
  outbox: OutboxMessage[] = [];
  sendings = new Map<string, SendingRecord>();

  constructor(
    private readonly ctx: DomainContext,
    private readonly options: () => ResolvedSandboxOptions,
  ) {}

  reset(): void {
    this.outbox = [];
    this.sendings.clear();
  }

  /** `POST /v1/{collection}/{id}/Send/Email`: the message goes to the outbox. */
  sendEmail(collection: string, id: string, body: unknown) {
    const spec = findCollection(collection);
    if (spec?.kind !== 'document') throw notFound(`Unknown document collection '${collection}'.`);
    const input = validate(emailSchema, body);
    const record = this.ctx.state.get(spec.name, id);
    if (!record) throw notFound(`${spec.name} '${id}' does not exist.`);
    const list = (v: string | string[] | null | undefined) =>
      v === null || v === undefined ? [] : Array.isArray(v) ? v : [v];
    const message: OutboxMessage = {
      Id: this.ctx.rng().guid(),
      Collection: spec.name,
      DocumentId: record.Id,
      DocumentNumber: String(record.DocumentNumber ?? ''),
      To: list(input.To),
      Cc: list(input.Cc),
      Subject: input.Subject ?? `Doklad ${String(record.DocumentNumber ?? '')}`,
      Body: input.Body ?? '',
      Attachment: {
        FileName: `${String(record.DocumentNumber ?? record.Id)}.pdf`,
        ContentType: 'application/pdf',
      },
      SentAt: iso(this.ctx.now()),
    };
    this.outbox.push(message);
    return { EmailId: message.Id, Status: 'Sent' };
  }

  /** `POST /v1/{collection}/{id}/Send/EInvoice`: accepted, with a status that moves over time. */
  sendEInvoice(collection: string, id: string) {
    const spec = findCollection(collection);
    if (spec?.kind !== 'document') throw notFound(`Unknown document collection '${collection}'.`);
    if (!eInvoiceCollections.has(spec.name)) {
      throw validationError('collection', `${spec.name} cannot be sent through the e-invoicing network.`);
    }
    const record = this.ctx.state.get(spec.name, id);
    if (!record) throw notFound(`${spec.name} '${id}' does not exist.`);
    const address = record.BusinessPartnerAddress as Record<string, unknown> | null;
    if (!address?.IdentificationNumber && !address?.TaxIdentificationNumber) {
      throw validationError(
        'BusinessPartnerAddress.IdentificationNumber',
        "'IdentificationNumber' must not be empty: the buyer has no e-invoicing participant identifier.",
      );
    }
    const cfg = this.options().eInvoicing;
    const t0 = this.ctx.now();
    const step = cfg.stepMs;
    const steps: SendingStep[] = [{ atMs: t0, Status: 'Queued', ResponseCode: null }];
    steps.push({ atMs: t0 + step, Status: 'Sent', ResponseCode: null });
    if (this.answersMls()) {
      steps.push(...this.mlsSteps(record, t0 + 2 * step, step));
    } else if (this.ctx.rng().chance(cfg.transportFailureProbability)) {
      steps.push({ atMs: t0 + 2 * step, Status: 'TransportFailed', ResponseCode: null });
    } else {
      steps.push({ atMs: t0 + 2 * step, Status: 'Delivered', ResponseCode: null });
      steps.push({ atMs: t0 + 3 * step, Status: 'Delivered', ResponseCode: 'AB' });
      steps.push({ atMs: t0 + 4 * step, Status: 'Delivered', ResponseCode: 'IP' });
      const final = this.ctx.rng().weighted(cfg.responseWeights);
      steps.push({ atMs: t0 + 5 * step, Status: 'Delivered', ResponseCode: final });
      let at = t0 + 6 * step;
      let last: ResponseCode = final;
      if (final === 'UQ') {
        last = this.ctx.rng().chance(0.8) ? 'AP' : 'RE';
        steps.push({ atMs: at, Status: 'Delivered', ResponseCode: last });
        at += step;
      }
      if (last === 'AP' && this.ctx.rng().chance(cfg.paidProbability)) {
        steps.push({ atMs: at, Status: 'Delivered', ResponseCode: 'PD' });
      }
    }
    const sending: SendingRecord = {
      SendingId: this.ctx.rng().guid(),
      Collection: spec.name,
      DocumentId: record.Id,
      DocumentNumber: String(record.DocumentNumber ?? ''),
      steps,
    };
    this.sendings.set(sending.SendingId, sending);
    return { SendingId: sending.SendingId, Status: 'Queued' as TransportStatus };
  }

  /**
   * The Slovak leg: the network validates the UBL (its own rules, `peppol-network.ts`) and answers
   * with MLS: RE with SV or BV (and the rule ids), RE with FD when the receiver cannot be reached,
   * else AB (accepted, no confirmation) or AP (delivered and confirmed), AP sometimes with BW.
   */
  private mlsSteps(record: Record<string, unknown>, at: number, step: number): SendingStep[] {
    const percent = this.ctx.state.refs.national.vatPercent;
    const verdict = networkVerdict(record, (t) => percent[String(t)] ?? 0);
    const rejected = (reason: MlsReason): SendingStep[] => [
      { atMs: at, Status: 'Rejected', ResponseCode: null, mls: { code: 'RE', reasons: [reason] } },
    ];
    if (verdict?.reason === 'SV')
      return rejected({ Code: 'SV', RuleIds: [], Description: verdict.description });
    if (verdict?.reason === 'BV') {
      return rejected({ Code: 'BV', RuleIds: verdict.ruleIds, Description: verdict.description });
    }
    const rng = this.ctx.rng();
    if (rng.chance(this.options().eInvoicing.transportFailureProbability)) {
      return rejected({
        Code: 'FD',
        RuleIds: [],
        Description: "The receiver's access point could not be reached.",
      });
    }
    const received: SendingStep = {
      atMs: at,
      Status: 'Delivered',
      ResponseCode: null,
      mls: { code: 'AB', reasons: [] },
    };
    if (rng.chance(MLS_BLIND_SHARE)) return [received];
    const reasons: MlsReason[] = rng.chance(MLS_WARNING_SHARE)
      ? [
          {
            Code: 'BW',
            RuleIds: ['PEPPOL-EN16931-R002'],
            Description: 'No more than one note is allowed on document level.',
          },
        ]
      : [];
    return [
      received,
      { atMs: at + step, Status: 'Delivered', ResponseCode: null, mls: { code: 'AP', reasons } },
    ];
  }

  /** `GET /v1/EInvoicing/Sendings/{sendingId}`. */
  eInvoiceStatus(sendingId: string) {
    const sending = this.sendings.get(sendingId.toLowerCase());
    if (!sending) throw notFound(`Sending '${sendingId}' does not exist.`);
    const now = this.ctx.now();
    const reached = sending.steps.filter((s) => s.atMs <= now);
    const current = reached[reached.length - 1] ?? (sending.steps[0] as SendingStep);
    const last = sending.steps[sending.steps.length - 1] as SendingStep;
    return {
      SendingId: sending.SendingId,
      Collection: sending.Collection,
      DocumentId: sending.DocumentId,
      DocumentNumber: sending.DocumentNumber,
      Status: current.Status,
      ResponseCode: current.ResponseCode,
      ResponseDescription: current.ResponseCode ? responseDescriptions[current.ResponseCode] : null,
      ...this.mlsFields(current),
      IsFinal: current === last,
      History: reached.map((s) => ({
        Date: iso(s.atMs),
        Status: s.Status,
        ResponseCode: s.ResponseCode,
        ResponseDescription: s.ResponseCode ? responseDescriptions[s.ResponseCode] : null,
        ...this.mlsFields(s),
      })),
    };
  }

  /** Whether the network answers with MLS: the Slovak leg, unless told to give Invoice Responses. */
  private answersMls(): boolean {
    const statuses = this.options().eInvoicing.statuses;
    return (statuses ?? (this.ctx.state.settings.variant === 'sk' ? 'mls' : 'invoiceResponse')) === 'mls';
  }

  /** The MLS fields of a step on the Slovak leg (absent elsewhere). */
  private mlsFields(step: SendingStep) {
    if (!this.answersMls()) return {};
    return { MessageLevelStatus: step.mls?.code ?? null, MessageLevelReasons: step.mls?.reasons ?? [] };
  }
}
