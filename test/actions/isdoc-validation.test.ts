import { describe, expect, it } from 'vitest';
import { IsdocInvalidError } from '../../functions/core/actions/errors.js';
import { validateIsdoc } from '../../functions/core/actions/isdoc-validation.js';

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

describe('ISDOC validation', () => {
  it('accepts the default namespace and a prefixed one', () => {
    expect(
      validateIsdoc(
        `<?xml version="1.0"?><Invoice xmlns="${NS}" version="6.0.2"><ID>FV1</ID></Invoice>`,
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
