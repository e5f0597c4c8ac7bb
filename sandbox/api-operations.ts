/**
 * The `/v1` operations of the endpoint catalog, dispatched by operation id
 * (`<Collection>.<action>`): lists and by-id reads, files, imports, transfers, payment state and
 * liquidation, price-list reads, sending.
 */
import type { ApiRecord } from '../functions/accounting/api.js';
import { findCollection, type ServiceVariant } from '../functions/accounting/collections.js';
import { Domain } from './domain.js';
import { json, notFound, ProblemError, parseJsonBody, type Reply } from './http.js';
import { type IsdocContext, isdocXml } from './isdoc.js';
import { parseListQuery, queryMap } from './list-query.js';
import type { ResolvedSandboxOptions } from './options.js';
import { documentPdf } from './pdf.js';
import { availableQuantities, sellingPrices } from './price-list.js';
import type { ListQuery, SandboxState } from './state.js';

export interface OperationRequest {
  url: URL;
  params: Record<string, string>;
  body: Buffer;
}

const transferTargets: Record<string, string> = {
  transferToIssuedInvoice: 'IssuedInvoices',
  transferToReceivedOrder: 'ReceivedOrders',
  transferToIssueSlip: 'IssueSlips',
  transferToReceivedInvoice: 'ReceivedInvoices',
};

export class ApiOperations {
  constructor(
    private readonly state: SandboxState,
    private readonly domain: Domain,
    private readonly options: () => ResolvedSandboxOptions,
  ) {}

  private get variant(): ServiceVariant {
    return this.state.settings.variant;
  }

  private listQuery(name: string, url: URL, acceptsAfter?: boolean): ListQuery {
    const spec = findCollection(name, this.variant);
    return parseListQuery(
      url,
      { name, acceptsAfter: acceptsAfter ?? spec?.acceptsAfter ?? true },
      this.options().maxPageSize,
    );
  }

  /** A page of `collection` as `EntityListQueryResultDto`; `map` turns records into the answered DTO. */
  private listReply(
    collection: string,
    url: URL,
    extra: {
      map?: (r: ApiRecord) => unknown;
      filter?: (r: ApiRecord) => boolean;
      acceptsAfter?: boolean;
    } = {},
  ): Reply {
    const query = this.listQuery(collection, url, extra.acceptsAfter);
    const result = this.state.list(collection, {
      ...query,
      ...(extra.filter ? { filter: extra.filter } : {}),
    });
    return json(200, {
      Items: extra.map ? result.items.map(extra.map) : result.items,
      TotalItemCount: result.total,
      Pagination: { PageNumber: query.pageNumber, PageSize: query.pageSize, After: query.after ?? null },
    });
  }

  getVisible(collection: string, id: string): ApiRecord {
    Domain.checkId(id);
    const record = this.state.get(collection, id);
    if (!record) throw notFound(`${collection} '${id}' does not exist.`);
    return record;
  }

  dispatch(opId: string, req: OperationRequest): Reply {
    const [prefix, action] = opId.split('.') as [string, string];
    const id = req.params.id ?? '';
    const body = (required: boolean) => parseJsonBody(req.body, required);
    switch (action) {
      case 'list':
        return this.listReply(prefix, req.url);
      case 'get':
        return json(200, this.getVisible(prefix, id));
      case 'pdf':
        return this.pdf(prefix, id, req.url);
      case 'isdoc':
        return this.isdoc(prefix, id);
      case 'create':
        if (prefix === 'BusinessPartners') return json(201, this.domain.createPartner(body(true)));
        if (prefix === 'PaymentMethods') return json(201, this.domain.createPaymentMethod(body(true)));
        if (prefix === 'BankDocuments') break;
        return json(201, this.domain.importDocument(prefix, body(true)));
      case 'update':
        Domain.checkId(id);
        return json(200, this.domain.updatePartner(id, body(true)));
      case 'transferToIssuedInvoiceBulk':
        return json(201, this.domain.transferSlipsBulk(body(true)));
      case 'advanceInvoiceDeduction':
        return json(200, this.domain.deductAdvance(body(true)));
      case 'status': {
        if (prefix === 'EInvoicing') return json(200, this.domain.eInvoiceStatus(req.params.sendingId ?? ''));
        return json(200, this.getVisible(prefix, id).Status ?? 'Unfinished');
      }
      case 'sendEmail':
        Domain.checkId(id);
        return json(200, this.domain.sendEmail(req.params.collection ?? '', id, body(true)));
      case 'sendEInvoice':
        Domain.checkId(id);
        return json(200, this.domain.sendEInvoice(req.params.collection ?? '', id));
      default: {
        const reply = this.payment(prefix, action, req) ?? this.priceList(prefix, action, req);
        if (reply) return reply;
      }
    }
    const target = transferTargets[action];
    if (target) {
      Domain.checkId(id);
      return json(201, this.domain.transfer(prefix, id, body(false), target));
    }
    if (prefix === 'BankDocuments') {
      const kind = action.includes('Receipt') ? 'Receipt' : 'Payment';
      return json(201, this.domain.createBankDocument(kind, action.endsWith('WithLiquidation'), body(true)));
    }
    throw notFound();
  }

  /** Payment state and liquidation of issued (advance) invoices. */
  private payment(prefix: string, action: string, req: OperationRequest): Reply | undefined {
    const liquidations = this.domain.liquidations;
    const documentId = req.params.DocumentId ?? '';
    switch (action) {
      case 'unpaid':
        return this.listReply(prefix, req.url, {
          acceptsAfter: true,
          filter: (r) => liquidations.paymentStatus(prefix, r).RestToPay > 0,
          map: (r) => liquidations.paymentStatus(prefix, r),
        });
      case 'restToPay':
        return json(200, liquidations.paymentStatus(prefix, this.getVisible(prefix, req.params.id ?? '')));
      case 'liquidation':
        return json(200, liquidations.get(prefix, req.params.id ?? ''));
      case 'liquidateStandaloneFully':
        Domain.checkId(documentId);
        return json(201, liquidations.liquidateFully(prefix, documentId, parseJsonBody(req.body, false)));
      case 'liquidateStandalonePartially':
        Domain.checkId(documentId);
        return json(201, liquidations.liquidatePartially(prefix, documentId, parseJsonBody(req.body, true)));
      default:
        return undefined;
    }
  }

  private priceList(prefix: string, action: string, req: OperationRequest): Reply | undefined {
    if (prefix !== 'PriceListItems') return undefined;
    switch (action) {
      case 'registrationNumbers': {
        const itemId = (req.params.PriceListItemId ?? '').toLowerCase();
        return this.listReply('RegistrationNumbers', req.url, {
          acceptsAfter: true,
          filter: (r) => r.PriceListItemId === itemId,
        });
      }
      case 'availableQuantities':
        return json(200, availableQuantities(this.state, parseJsonBody(req.body, true)));
      case 'sellingPrices':
        return json(200, sellingPrices(this.state, parseJsonBody(req.body, true)));
      default:
        return undefined;
    }
  }

  private pdf(collection: string, id: string, url: URL): Reply {
    const record = this.getVisible(collection, id);
    const language = queryMap(url).get('language');
    if (!language) throw new ProblemError(422, { Language: ["'Language' must not be empty."] });
    const lang = ['current', 'english'].includes(language.toLowerCase()) ? language.toLowerCase() : undefined;
    if (!lang)
      throw new ProblemError(400, { Language: [`The value '${language}' is not valid for Language.`] });
    const pdf = documentPdf(collection, record, lang === 'english' ? 'English' : 'Current');
    return {
      status: 200,
      body: pdf,
      contentType: 'application/pdf',
      headers: {
        'Content-Disposition': `attachment; filename="${String(record.DocumentNumber ?? record.Id)}.pdf"`,
      },
    };
  }

  /** The document's bank account (its `BankAccountId`) and, for a corrective document, the corrected one. */
  private isdocContext(record: ApiRecord, currencyCode: string): IsdocContext {
    const bankAccount = (this.state.refs.lists.get('BankAccounts') ?? []).find(
      (a) => a.Id === record.BankAccountId,
    );
    const correctedId = record.CorrectedDocumentId;
    const original =
      typeof correctedId === 'string' ? this.state.get('IssuedInvoices', correctedId) : undefined;
    return { currencyCode, national: this.state.refs.national, bankAccount, original: original ?? undefined };
  }

  private isdoc(collection: string, id: string): Reply {
    const record = this.getVisible(collection, id);
    const createdAt = this.state.createdAt(collection, id) ?? 0;
    if (createdAt > 0 && this.state.nowMs() < createdAt + this.options().isdocReadyDelayMs)
      return { status: 204 };
    const currency =
      (this.state.refs.lists.get('Currencies') ?? []).find((c) => c.Id === record.CurrencyId)?.Code ??
      this.state.refs.national.homeCurrency;
    return {
      status: 200,
      body: isdocXml(collection, record, this.isdocContext(record, String(currency))),
      contentType: 'application/xml; charset=utf-8',
      headers: {
        'Content-Disposition': `attachment; filename="${String(record.DocumentNumber ?? record.Id)}.isdoc"`,
      },
    };
  }
}
