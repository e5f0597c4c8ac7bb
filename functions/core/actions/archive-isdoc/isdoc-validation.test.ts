import { describe, expect, it } from 'vitest';
import { createXsdIsdocSchema } from '#functions/adapters/isdoc/xsd-isdoc-schema.js';
import { startSandbox } from '#sandbox/index.js';
import { IsdocInvalidError } from '../errors.js';
import type { IsdocSchema } from '../ports.js';
import { SCHEMA_ERROR_MAX_CHARS, SCHEMA_ERRORS_MAX } from './events.js';
import { checkIsdoc, validateIsdoc } from './isdoc-validation.js';

const NS = 'http://isdoc.cz/namespace/2013';

function problems(xml: string, number = 'FV1'): string[] {
  try {
    validateIsdoc(xml, number);
    return [];
  } catch (error) {
    if (error instanceof IsdocInvalidError) return [...error.issues];
    throw error;
  }
}

describe('ISDOC structure (the first step of the check)', () => {
  it('reads the version and ID of the default namespace and of a prefixed one', () => {
    expect(
      validateIsdoc(
        `<?xml version="1.0"?><Invoice xmlns="${NS}" version="6.0.2"><DocumentType>1</DocumentType><ID>FV1</ID></Invoice>`,
        'FV1',
      ),
    ).toEqual({
      version: '6.0.2',
      id: 'FV1',
    });
    expect(
      validateIsdoc(
        `<i:Invoice xmlns:i="${NS}" version="6.0.1"><i:DocumentType>1</i:DocumentType><i:ID> FV1 </i:ID></i:Invoice>`,
        'FV1',
      ),
    ).toMatchObject({ id: 'FV1' });
  });

  it('names each problem', () => {
    expect(problems('<Invoice><ID>FV1</Invoice>')[0]).toMatch(/not well-formed XML/);
    expect(problems(`<CreditNote xmlns="${NS}" version="6.0.2"><ID>FV1</ID></CreditNote>`)).toEqual([
      "root element is 'CreditNote', expected 'Invoice'",
    ]);
    expect(problems('<Invoice xmlns="urn:other" version="6.0.2"><ID>FV1</ID></Invoice>')[0]).toMatch(
      /root namespace is 'urn:other'/,
    );
    expect(problems(`<Invoice xmlns="${NS}"><ID>FV1</ID></Invoice>`)).toEqual([
      "root has no 'version' attribute",
    ]);
    expect(problems(`<Invoice xmlns="${NS}" version="6.0.2"><ID>FV2</ID></Invoice>`)).toEqual([
      "ID is 'FV2', expected the document number 'FV1'",
    ]);
    expect(problems(`<Invoice xmlns="${NS}" version="6.0.2"></Invoice>`)).toEqual([
      "no single 'ID' element under the root",
    ]);
  });
});

describe('checkIsdoc: structure, then the official ISDOC 6.0.2 schema', () => {
  const schema = createXsdIsdocSchema();
  const bytes = (text: string) => new TextEncoder().encode(text);

  it('gives the verdict invalid to a root with only an ID, which the structure alone let through', async () => {
    const minimal = `<Invoice xmlns="${NS}" version="6.0.2"><ID>FV1</ID></Invoice>`;
    expect(validateIsdoc(minimal, 'FV1')).toEqual({ version: '6.0.2', id: 'FV1' });
    const verdict = await checkIsdoc(bytes(minimal), 'FV1', schema);
    expect(verdict).toMatchObject({ schema: 'ISDOC 6.0.2', valid: false, errorCount: 1 });
    expect(verdict.errors[0]).toMatch(/ID'?: This element is not expected\. Expected is .*DocumentType/);
  });

  it('gives the verdict valid to a sandbox invoice', async () => {
    const sandbox = await startSandbox({ sizes: { documents: 10, partners: 2, perCollection: {} } });
    try {
      const [invoice] = sandbox.state.list('IssuedInvoices', { pageNumber: 1, pageSize: 1 }).items;
      const res = await fetch(`${sandbox.baseUrl}/v1/IssuedInvoices/${String(invoice?.Id)}/isdoc`, {
        headers: { 'Api-Key': sandbox.credentials.apiKey },
      });
      const verdict = await checkIsdoc(bytes(await res.text()), String(invoice?.DocumentNumber), schema);
      expect(verdict).toEqual({ schema: 'ISDOC 6.0.2', valid: true, errors: [], errorCount: 0 });
    } finally {
      await sandbox.close();
    }
  });

  it('refuses what is not an ISDOC of the document before the schema is asked', async () => {
    const asked: Uint8Array[] = [];
    const spy: IsdocSchema = {
      name: 'spy',
      validate: async (xml) => {
        asked.push(xml);
        return { valid: true, errors: [] };
      },
    };
    await expect(
      checkIsdoc(bytes(`<Order xmlns="${NS}" version="6.0.2"><ID>FV1</ID></Order>`), 'FV1', spy),
    ).rejects.toThrow(IsdocInvalidError);
    await expect(
      checkIsdoc(bytes(`<Invoice xmlns="${NS}" version="6.0.2"><ID>FV2</ID></Invoice>`), 'FV1', spy),
    ).rejects.toThrow(/expected the document number 'FV1'/);
    expect(asked).toEqual([]);
  });

  it('bounds the errors it passes on: the first few, each cut short, and how many there were', async () => {
    const many: IsdocSchema = {
      name: 'many',
      validate: async () => ({
        valid: false,
        errors: Array.from({ length: 25 }, (_, i) => `${i}:${'x'.repeat(1000)}`),
      }),
    };
    const verdict = await checkIsdoc(
      bytes(`<Invoice xmlns="${NS}" version="6.0.2"><ID>FV1</ID></Invoice>`),
      'FV1',
      many,
    );
    expect(verdict.errorCount).toBe(25);
    expect(verdict.errors).toHaveLength(SCHEMA_ERRORS_MAX);
    expect(verdict.errors[9]).toMatch(/^9:x+…$/);
    for (const e of verdict.errors) expect(e.length).toBe(SCHEMA_ERROR_MAX_CHARS);
  });
});
