import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isdocSchemaFiles } from '#functions/adapters/isdoc/isdoc-schema-files.js';
import { createXsdIsdocSchema, ISDOC_SCHEMA_NAME } from '#functions/adapters/isdoc/xsd-isdoc-schema.js';
import { startSandbox } from '#sandbox/index.js';

const NS = 'http://isdoc.cz/namespace/2013';
const SCHEMA_DIR = new URL('../../functions/adapters/isdoc/schema/', import.meta.url);
const bytes = (text: string) => new TextEncoder().encode(text);

describe('the embedded ISDOC 6.0.2 schema', () => {
  it('is exactly the .xsd files beside it, permission notice included (npm run isdoc:schema)', () => {
    const files = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.xsd'));
    expect(Object.keys(isdocSchemaFiles()).sort()).toEqual(files.sort());
    for (const file of files) {
      const text = readFileSync(new URL(file, SCHEMA_DIR), 'utf8');
      expect(isdocSchemaFiles()[file], file).toBe(text);
      expect(text, file).toContain('Permission to use, copy, modify and distribute this schema');
    }
  });
});

describe('createXsdIsdocSchema', () => {
  const schema = createXsdIsdocSchema();

  it('rejects a root with only an ID, naming the element the schema expects', async () => {
    const verdict = await schema.validate(
      bytes(`<Invoice xmlns="${NS}" version="6.0.2"><ID>FV1</ID></Invoice>`),
    );
    expect(schema.name).toBe(ISDOC_SCHEMA_NAME);
    expect(verdict.valid).toBe(false);
    expect(verdict.errors[0]).toMatch(
      /line 1: Element '\{http:\/\/isdoc\.cz\/namespace\/2013\}ID'.*DocumentType/,
    );
  });

  it('answers "not well-formed" for broken XML instead of throwing', async () => {
    const verdict = await schema.validate(bytes('<Invoice><ID>FV1</Invoice>'));
    expect(verdict.valid).toBe(false);
    expect(verdict.errors[0]).toMatch(/^not well-formed XML: line 1: .*mismatch/);
  });

  it('accepts a sandbox invoice and names what is missing when the bank-account group is cut short', async () => {
    const sandbox = await startSandbox({ sizes: { documents: 10, partners: 2, perCollection: {} } });
    try {
      const [invoice] = sandbox.state.list('IssuedInvoices', { pageNumber: 1, pageSize: 1 }).items;
      const res = await fetch(`${sandbox.baseUrl}/v1/IssuedInvoices/${String(invoice?.Id)}/isdoc`, {
        headers: { 'Api-Key': sandbox.credentials.apiKey },
      });
      const xml = await res.text();
      expect(await schema.validate(bytes(xml))).toEqual({ valid: true, errors: [] });
      // What the sandbox used to write: the account without BankCode, Name, IBAN and BIC.
      const cut = xml.replace(/<BankCode>.*?<\/BIC>/, '');
      expect(cut).not.toBe(xml);
      const verdict = await schema.validate(bytes(cut));
      expect(verdict.valid).toBe(false);
      expect(verdict.errors.join('\n')).toMatch(
        /Expected is \( \{http:\/\/isdoc\.cz\/namespace\/2013\}BankCode \)/,
      );
    } finally {
      await sandbox.close();
    }
  });

  it('loads the schema once per process, however many checks share it', async () => {
    let loads = 0;
    const a = createXsdIsdocSchema({ onLoad: () => (loads += 1) });
    const b = createXsdIsdocSchema({ onLoad: () => (loads += 1) });
    const doc = bytes(`<Invoice xmlns="${NS}" version="6.0.2"/>`);
    await Promise.all([a.validate(doc), b.validate(doc), a.validate(doc)]);
    // The first test of this file loaded it already: no second load here.
    expect(loads).toBe(0);
  });
});
