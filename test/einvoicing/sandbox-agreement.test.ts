/**
 * The pre-flight and the sandbox network's own rules are two independent readings of the same
 * rule texts: on every issued invoice of a seeded sandbox they must name the same rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenRules, preflight, vatPercentFrom } from '#functions/core/einvoicing/preflight.js';
import { type Harness, harness, jsonOf } from '../sandbox/helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sizes: { documents: 2000, partners: 60, perCollection: {} } });
});
afterAll(async () => {
  await h.sandbox.close();
});

async function all(path: string) {
  const out = [];
  for (let page = 1; ; page++) {
    const body = await h.getJson(`${path}?PageSize=100&PageNumber=${page}`);
    out.push(...body.Items);
    if (body.Items.length < 100) return out;
  }
}

describe('pre-flight against the sandbox network', () => {
  it('names exactly the rules the network rejects for, on every issued invoice', async () => {
    const rates = await all('/v1/VatRates');
    const invoices = await all('/v1/IssuedInvoices');
    const truth = new Map<string, { verdict: null | { reason: string; ruleIds?: string[] } }>(
      (await jsonOf(await fetch(`${h.sandbox.baseUrl}/_sandbox/einvoicing`))).invoices.map(
        (r: { id: string }) => [r.id, r],
      ),
    );
    const ctx = { vatPercent: vatPercentFrom(rates) };
    let blocked = 0;
    for (const invoice of invoices) {
      const verdict = truth.get(invoice.Id)?.verdict ?? null;
      const rules = brokenRules(preflight(invoice, ctx));
      if (verdict?.reason === 'BV') {
        blocked++;
        expect({ id: invoice.Id, rules: [...rules].sort() }).toEqual({
          id: invoice.Id,
          rules: [...(verdict.ruleIds ?? [])].sort(),
        });
      } else if (verdict === null) {
        // Both pass it (invoices of partners without a DIČ break R010 at both: a BV verdict above).
        expect({ id: invoice.Id, rules }).toEqual({ id: invoice.Id, rules: [] });
      }
    }
    expect(blocked).toBeGreaterThan(5);
  });
});
