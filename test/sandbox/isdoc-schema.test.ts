import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '#functions/accounting/api.js';
import { collectionOf, isdocRecordTypes } from '#functions/accounting/collections.js';
import { createXsdIsdocSchema } from '#functions/adapters/isdoc/xsd-isdoc-schema.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';
import { isdocXml } from '#sandbox/isdoc.js';

/**
 * Every ISDOC the sandbox writes passes the official ISDOC 6.0.2 schema, checked with the validator
 * the archive uses: the served kinds (issued invoices and advance invoices) through the HTTP API,
 * the corrective kinds of each variant (credit and debit notes, tax documents, corrective tax
 * documents) through the generator, since the service exports no ISDOC for them.
 */
const schema = createXsdIsdocSchema();
const served = isdocRecordTypes.map((t) => collectionOf(t)!.name);
const generatedOnly = {
  sk: ['IssuedCreditNotes', 'IssuedDebitNotes', 'IssuedTaxDocuments'],
  cz: ['IssuedInvoiceCorrectiveTaxDocuments'],
} as const;

function all(sandbox: Sandbox, collection: string): ApiRecord[] {
  return sandbox.state.list(collection, { pageNumber: 1, pageSize: 100_000 }).items;
}

async function viaApi(sandbox: Sandbox, collection: string, id: unknown): Promise<string> {
  const res = await fetch(`${sandbox.baseUrl}/v1/${collection}/${String(id)}/isdoc`, {
    headers: { 'Api-Key': sandbox.credentials.apiKey },
  });
  expect(res.status).toBe(200);
  return res.text();
}

function viaGenerator(sandbox: Sandbox, collection: string, record: ApiRecord): string {
  const bankAccount = (sandbox.state.refs.lists.get('BankAccounts') ?? []).find(
    (a) => a.Id === record.BankAccountId,
  );
  const corrected = record.CorrectedDocumentId;
  const original = typeof corrected === 'string' ? sandbox.state.get('IssuedInvoices', corrected) : undefined;
  return isdocXml(collection, record, {
    currencyCode: sandbox.state.refs.national.homeCurrency,
    national: sandbox.state.refs.national,
    bankAccount,
    original,
  });
}

describe.each(['sk', 'cz'] as const)(
  'sandbox ISDOC (%s variant) against the ISDOC 6.0.2 schema',
  (variant) => {
    it('every document of every kind is valid', async () => {
      const sandbox = await startSandbox({
        variant,
        sizes: { documents: 400, partners: 12, perCollection: {} },
      });
      const counts: Record<string, { valid: number; invalid: number }> = {};
      const failures: string[] = [];
      try {
        // Beside the seeded documents, those the service's activity makes: orders transferred to
        // slips and invoices, and edited documents.
        const made = new Set<string>();
        for (let i = 0; i < 300; i += 1) {
          const tick = sandbox.server.activity.tick();
          if (tick.collection === 'IssuedInvoices' && tick.id) made.add(tick.id);
        }
        expect(made.size).toBeGreaterThan(0);
        for (const collection of [...served, ...generatedOnly[variant]]) {
          const records = all(sandbox, collection);
          // Every kind has documents to check: an empty kind would pass without checking anything.
          expect(records.length, collection).toBeGreaterThan(0);
          const count = { valid: 0, invalid: 0 };
          for (const record of records) {
            const xml = served.includes(collection)
              ? await viaApi(sandbox, collection, record.Id)
              : viaGenerator(sandbox, collection, record);
            if (collection === 'IssuedInvoiceCorrectiveTaxDocuments') {
              // A corrective document names the invoice it corrects.
              expect(xml).toMatch(
                /<OriginalDocumentReferences><OriginalDocumentReference id="original-1"><ID>[^<]+<\/ID>/,
              );
            }
            const verdict = await schema.validate(new TextEncoder().encode(xml));
            if (verdict.valid) count.valid += 1;
            else {
              count.invalid += 1;
              failures.push(
                `${collection} ${String(record.DocumentNumber)}: ${verdict.errors.slice(0, 3).join(' | ')}`,
              );
            }
          }
          counts[collection] = count;
        }
      } finally {
        await sandbox.close();
      }
      console.info(`sandbox ISDOC verdicts (${variant}):`, counts);
      expect(failures.slice(0, 5)).toEqual([]);
    }, 60_000);
  },
);
