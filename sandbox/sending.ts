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

export type TransportStatus = 'Queued' | 'Sent' | 'Delivered' | 'TransportFailed';
export type ResponseCode = 'AB' | 'IP' | 'UQ' | 'CA' | 'RE' | 'AP' | 'PD';

interface SendingStep {
  atMs: number;
  Status: TransportStatus;
  ResponseCode: ResponseCode | null;
}

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
    if (this.ctx.rng().chance(cfg.transportFailureProbability)) {
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
      IsFinal: current === last,
      History: reached.map((s) => ({
        Date: iso(s.atMs),
        Status: s.Status,
        ResponseCode: s.ResponseCode,
        ResponseDescription: s.ResponseCode ? responseDescriptions[s.ResponseCode] : null,
      })),
    };
  }
}
