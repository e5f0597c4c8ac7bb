/**
 * The activity generator: e-shop-like received orders, edits, invoicing and payments of issued
 * invoices and advance invoices at a configurable rate.
 */
import type { Domain } from './domain.js';
import { exemptionNote } from './generator.js';
import { payableCollections } from './payment-truth.js';
import { money } from './random.js';

export const activityActions = [
  'createOrder',
  'editDocument',
  'issueInvoice',
  'payInvoice',
  'moveDueDate',
] as const;
export type ActivityAction = (typeof activityActions)[number];

/** How a generated payment relates to the rest to pay. */
export type PaymentKind = 'full' | 'partial' | 'over' | 'under';
const paymentKinds: Record<PaymentKind, number> = { full: 0.4, partial: 0.3, over: 0.15, under: 0.15 };

const editable = ['ReceivedOrders', 'IssuedInvoices', 'IssueSlips', 'BusinessPartners', 'IssuedOffers'];

export class ActivityGenerator {
  private timer: NodeJS.Timeout | undefined;

  /** `domain`: the company each action goes to (with many companies, each in turn). */
  constructor(
    private readonly domain: () => Domain,
    private readonly weights: () => Partial<Record<ActivityAction, number>>,
  ) {}

  /** Takes one action; answers what it did (or that there was nothing to do). */
  tick(domain = this.domain()): {
    action: ActivityAction;
    collection?: string;
    id?: string;
    payment?: PaymentKind;
  } {
    const rng = domain.state.random();
    const weights = this.weights();
    const action = rng.weighted(
      Object.fromEntries(activityActions.map((a) => [a, weights[a] ?? 0])) as Record<ActivityAction, number>,
    );
    if (action === 'payInvoice') return this.payInvoice(domain);
    if (action === 'moveDueDate') return this.moveDueDate(domain);
    if (action === 'createOrder') {
      const { products, texts } = domain.state.refs.national;
      const partnerId = domain.state.sampleIds('BusinessPartners', 1)[0];
      const count = rng.int(1, 3);
      const items = Array.from({ length: count }, () => {
        const [code, text, unit, price, vat] = rng.pick(products);
        return {
          TextItem: {
            Code: code,
            Text: text,
            Unit: unit,
            UnitPrice: price,
            VatRateType: vat,
            Quantity: rng.int(1, 3),
            Note: exemptionNote(domain.state.refs.national, vat),
          },
        };
      });
      const created = domain.importDocument('ReceivedOrders', {
        Text: texts.eshopOrder,
        ...(partnerId
          ? { BusinessPartnerAddress: { DocumentAddressWithAddressBookLink: { Id: partnerId } } }
          : {}),
        Items: items,
      });
      return { action, collection: 'ReceivedOrders', id: created.Data.Id };
    }
    if (action === 'editDocument') {
      const collection = rng.pick(editable);
      const id = domain.state.sampleIds(collection, 1)[0];
      if (id) domain.touch(collection, id);
      return { action, collection, ...(id ? { id } : {}) };
    }
    // issueInvoice: an unfinished slip goes to an invoice, an unfinished order to the next step of
    // the variant's chain (a slip in sk, an invoice in cz).
    for (const collection of ['IssueSlips', 'ReceivedOrders']) {
      const target = domain.transferTarget(collection);
      if (!target) continue;
      for (const id of domain.state.sampleIds(collection, 20)) {
        const record = domain.state.getLatest(collection, id);
        if (record?.Status !== 'Unfinished') continue;
        const created = domain.transfer(collection, id, undefined, target);
        return { action, collection: target, id: created.Data.Id };
      }
    }
    return { action };
  }

  /**
   * A payment of an unpaid issued (advance) invoice: in full, in part, over or under the rest (an
   * under-payment leaves a small rest). The payment ground truth (`liquidations.payments`) records it.
   */
  private payInvoice(domain: Domain): {
    action: 'payInvoice';
    collection?: string;
    id?: string;
    payment?: PaymentKind;
  } {
    const rng = domain.state.random();
    const collection = rng.pick(payableCollections);
    for (const id of domain.state.sampleIds(collection, 20)) {
      const rest = domain.liquidations.restOf(collection, id);
      if (rest === undefined || rest <= 0) continue;
      const payment = rng.weighted(paymentKinds);
      const amount =
        payment === 'full'
          ? rest
          : payment === 'over'
            ? rest + rng.int(1, 50)
            : payment === 'under' && rest > 10
              ? rest - rng.int(1, 5)
              : money(rest * (rng.int(20, 70) / 100));
      if (!(money(amount) > 0)) continue;
      domain.liquidations.pay(collection, id, amount, {
        kind: payment === 'under' && rest <= 10 ? 'partial' : payment,
      });
      return { action: 'payInvoice', collection, id, payment };
    }
    return { action: 'payInvoice', collection };
  }

  /**
   * Payment terms extended: an unpaid issued (advance) invoice's due date moves on by 7-30 days. An
   * invoice long overdue stays overdue under its new due date (a new due-date pass); one issued today
   * gets more time.
   */
  private moveDueDate(domain: Domain): { action: 'moveDueDate'; collection?: string; id?: string } {
    const rng = domain.state.random();
    const collection = rng.pick(payableCollections);
    for (const id of domain.state.sampleIds(collection, 20)) {
      const rest = domain.liquidations.restOf(collection, id);
      if (rest === undefined || rest <= 0) continue;
      if (!domain.liquidations.moveDueDate(collection, id, rng.int(7, 30))) continue;
      return { action: 'moveDueDate', collection, id };
    }
    return { action: 'moveDueDate', collection };
  }

  start(ratePerSecond: number): void {
    this.stop();
    const interval = Math.max(1, Math.round(1000 / ratePerSecond));
    this.timer = setInterval(() => {
      try {
        this.tick();
      } catch {
        // A generated action that the rules refuse is simply skipped.
      }
    }, interval);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get running(): boolean {
    return this.timer !== undefined;
  }
}
