/**
 * The open invoices a payment can pay: the service's `Unpaid` lists of issued invoices and advance
 * invoices (id, number, `RestToPay`), each with its variable symbol and currency read from the
 * invoice itself (the list carries neither). The invoice's facts are kept for `maxAgeMs`, so a
 * statement of many payments reads each open invoice once; the rests to pay are read fresh on
 * every call.
 */
import type { AccountingApi, ApiRecord } from '#functions/accounting/api.js';
import { normaliseSymbol } from '#functions/core/bank/bank-transaction.js';
import type { PayableRecordType } from '#functions/core/events/payment-events.js';
import type { Clock } from '#functions/core/ports.js';
import { type PayableCollection, restToPay, unpaidStatuses } from '#functions/core/sync/unpaid-list.js';
import type { OpenInvoice } from './match-payment.js';

export const payableCollections: readonly { recordType: PayableRecordType; collection: PayableCollection }[] =
  [
    { recordType: 'IssuedInvoice', collection: 'IssuedInvoices' },
    { recordType: 'IssuedAdvanceInvoice', collection: 'IssuedAdvanceInvoices' },
  ];

export function collectionOfPayable(recordType: PayableRecordType): PayableCollection {
  return recordType === 'IssuedInvoice' ? 'IssuedInvoices' : 'IssuedAdvanceInvoices';
}

interface Facts {
  variableSymbol: string | undefined;
  currencyId: string | null;
  documentNumber: string | null;
  readAt: number;
}

export interface OpenInvoices {
  /** Every open invoice and advance invoice, with its rest to pay now. */
  list(): Promise<OpenInvoice[]>;
  /** One invoice with its rest to pay now (also when paid: rest 0); undefined when it does not exist. */
  one(recordType: PayableRecordType, id: string): Promise<OpenInvoice | undefined>;
}

/**
 * Currency ids → codes, and the home currency (a document without `CurrencyId` is in it): read once,
 * read again after a failure.
 */
function currencyCodesOf(deps: { api: AccountingApi; homeCurrency: string }) {
  let currencies: Promise<{ codes: Map<string, string>; home: string }> | undefined;
  return () => {
    currencies ??= (async () => {
      const codes = new Map<string, string>();
      let home = deps.homeCurrency;
      for await (const c of deps.api.listItems('Currencies')) {
        if (typeof c.Code !== 'string') continue;
        codes.set(c.Id.toLowerCase(), c.Code.toUpperCase());
        if (c.IsHomeCurrency === true) home = c.Code.toUpperCase();
      }
      return { codes, home };
    })().catch((error) => {
      currencies = undefined;
      throw error;
    });
    return currencies;
  };
}

export function createOpenInvoices(
  /** `homeCurrency`: the variant's, unless the service's currency list marks another. */
  deps: { api: AccountingApi; clock: Clock; homeCurrency: string },
  options: { maxAgeMs?: number; pageSize?: number } = {},
): OpenInvoices {
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
  const facts = new Map<string, Facts>();
  const currencyCodes = currencyCodesOf(deps);

  const factsOf = async (collection: string, id: string): Promise<Facts> => {
    const known = facts.get(id);
    if (known && deps.clock.now().getTime() - known.readAt < maxAgeMs) return known;
    const record: ApiRecord = await deps.api.get(collection as Parameters<AccountingApi['get']>[0], id);
    const fresh: Facts = {
      variableSymbol: normaliseSymbol(
        typeof record.VariableSymbol === 'string' ? record.VariableSymbol : undefined,
      ),
      currencyId: typeof record.CurrencyId === 'string' ? record.CurrencyId.toLowerCase() : null,
      documentNumber: typeof record.DocumentNumber === 'string' ? record.DocumentNumber : null,
      readAt: deps.clock.now().getTime(),
    };
    facts.set(id, fresh);
    return fresh;
  };

  const open = async (
    recordType: PayableRecordType,
    collection: PayableCollection,
    status: {
      Id: string;
      Number?: string | null;
      RestToPay: number;
      LiquidationInfos?: { Id: string }[] | null;
    },
  ): Promise<OpenInvoice> => {
    const f = await factsOf(collection, status.Id);
    const { codes, home } = await currencyCodes();
    return {
      recordType,
      id: status.Id,
      documentNumber: status.Number ?? f.documentNumber,
      variableSymbol: f.variableSymbol,
      currency: f.currencyId ? (codes.get(f.currencyId) ?? f.currencyId) : home,
      restToPay: status.RestToPay,
      liquidationIds: (status.LiquidationInfos ?? []).map((l) => l.Id),
    };
  };

  return {
    async list() {
      const out: OpenInvoice[] = [];
      for (const { recordType, collection } of payableCollections) {
        for await (const page of unpaidStatuses(deps.api, collection, {
          pageSize: options.pageSize ?? 100,
          onRequest: () => {},
        })) {
          for (const status of page)
            if (status.RestToPay > 0) out.push(await open(recordType, collection, status));
        }
      }
      return out;
    },
    async one(recordType, id) {
      const collection = collectionOfPayable(recordType);
      const status = await restToPay(deps.api, collection, id);
      return status ? open(recordType, collection, { ...status, Id: id }) : undefined;
    },
  };
}
