/** The activity generator: e-shop-like received orders, edits and invoicing at a configurable rate. */
import type { Domain } from './domain.js';

export type ActivityAction = 'createOrder' | 'editDocument' | 'issueInvoice';

const editable = ['ReceivedOrders', 'IssuedInvoices', 'IssueSlips', 'BusinessPartners', 'IssuedOffers'];

export class ActivityGenerator {
  private timer: NodeJS.Timeout | undefined;

  /** `domain`: the company each action goes to (with many companies, each in turn). */
  constructor(
    private readonly domain: () => Domain,
    private readonly weights: () => Record<ActivityAction, number>,
  ) {}

  /** Takes one action; answers what it did (or that there was nothing to do). */
  tick(domain = this.domain()): { action: ActivityAction; collection?: string; id?: string } {
    const rng = domain.state.random();
    const action = rng.weighted(this.weights());
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
