/**
 * docs/deploy.md's connections cost section is what bench/cost-doc.ts renders from the committed
 * results (`npx tsx bench/cost-doc.ts` after `npm run bench`), with every price of the one price list.
 */
import { describe, expect, it } from 'vitest';
import { COST_DOC_END, COST_DOC_START, readCostDocInputs, renderCostDoc } from '#bench/cost-doc.js';
import { PRICE_LIST } from '#bench/prices.js';

describe('docs/deploy.md connections cost', () => {
  it('is generated from bench/results/latest.json', async () => {
    const { latest, doc } = await readCostDocInputs(new URL('../../', import.meta.url));
    const section = doc.slice(doc.indexOf(COST_DOC_START), doc.indexOf(COST_DOC_END) + COST_DOC_END.length);
    expect(section.length).toBeGreaterThan(COST_DOC_START.length + COST_DOC_END.length);
    expect(section === renderCostDoc(latest.connections), 'run: npx tsx bench/cost-doc.ts').toBe(true);
  });

  it('states every price with its region and date', async () => {
    const { latest } = await readCostDocInputs(new URL('../../', import.meta.url));
    const section = renderCostDoc(latest.connections);
    expect(section).toContain(`${PRICE_LIST.region}, as of ${PRICE_LIST.asOf}`);
    for (const [name, usd] of Object.entries(PRICE_LIST.prices))
      expect(section).toContain(`\`${name}\` $${usd}`);
    const details = latest.connections?.details;
    if (details?.detection) {
      expect(details.region).toBe(PRICE_LIST.region);
      expect(details.pricesAsOf).toBe(PRICE_LIST.asOf);
    } else {
      expect(section).toContain('Not measured yet this way');
    }
  });
});
