/**
 * Checks an ISDOC before it is archived, in two steps:
 * 1. structure (`validateIsdoc`): well-formed XML, root element `Invoice` in the ISDOC namespace, a
 *    `version` attribute, and an `ID` equal to the document number. A document that fails this is
 *    not an ISDOC of this document at all; the message says so more plainly than a schema would.
 * 2. the official ISDOC 6.0.2 schema (`checkIsdoc`, through the `IsdocSchema` port): its verdict,
 *    with the first errors, bounded for events and logs.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { IsdocInvalidError } from '../errors.js';
import type { IsdocSchema } from '../ports.js';
import { SCHEMA_ERROR_MAX_CHARS, SCHEMA_ERRORS_MAX } from './events.js';

export const ISDOC_NAMESPACE = 'http://isdoc.cz/namespace/2013';

export interface IsdocInfo {
  /** The ISDOC `version` attribute, e.g. `6.0.2`. */
  version: string;
  id: string;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

function splitName(qualified: string): { prefix: string | undefined; local: string } {
  const colon = qualified.indexOf(':');
  return colon < 0
    ? { prefix: undefined, local: qualified }
    : { prefix: qualified.slice(0, colon), local: qualified.slice(colon + 1) };
}

function textOf(node: unknown): string | undefined {
  if (typeof node === 'string') return node.trim();
  if (node !== null && typeof node === 'object' && '#text' in node) {
    const text = (node as Record<string, unknown>)['#text'];
    return typeof text === 'string' ? text.trim() : undefined;
  }
  return undefined;
}

/** Validates `xml` as the ISDOC of `documentNumber`; throws `IsdocInvalidError` listing every problem. */
export function validateIsdoc(xml: string, documentNumber: string): IsdocInfo {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) {
    throw new IsdocInvalidError([
      `not well-formed XML: ${wellFormed.err.msg} (line ${wellFormed.err.line}, col ${wellFormed.err.col})`,
    ]);
  }
  const doc = parser.parse(xml) as Record<string, unknown>;
  const roots = Object.keys(doc).filter((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (roots.length !== 1 || roots[0] === undefined) {
    throw new IsdocInvalidError([`expected one root element, found ${roots.length}`]);
  }
  const rootName = roots[0];
  const root = doc[rootName];
  const attrs = (root !== null && typeof root === 'object' ? root : {}) as Record<string, unknown>;
  const { prefix, local } = splitName(rootName);
  const problems: string[] = [];
  if (local !== 'Invoice') problems.push(`root element is '${local}', expected 'Invoice'`);
  const namespace = attrs[prefix ? `@_xmlns:${prefix}` : '@_xmlns'];
  if (namespace !== ISDOC_NAMESPACE) {
    problems.push(`root namespace is '${String(namespace ?? '(none)')}', expected '${ISDOC_NAMESPACE}'`);
  }
  const version = attrs['@_version'];
  if (typeof version !== 'string' || version.trim() === '') problems.push("root has no 'version' attribute");
  const idNode = attrs[prefix ? `${prefix}:ID` : 'ID'];
  const id = Array.isArray(idNode) ? undefined : textOf(idNode);
  if (id === undefined || id === '') problems.push("no single 'ID' element under the root");
  else if (id !== documentNumber)
    problems.push(`ID is '${id}', expected the document number '${documentNumber}'`);
  if (problems.length > 0) throw new IsdocInvalidError(problems);
  return { version: String(version), id: id ?? '' };
}

/** The verdict of the schema on a structurally sound ISDOC. */
export interface IsdocVerdict {
  /** The schema, e.g. `ISDOC 6.0.2`. */
  schema: string;
  valid: boolean;
  /** The first errors (at most `SCHEMA_ERRORS_MAX`, each cut to `SCHEMA_ERROR_MAX_CHARS`). */
  errors: string[];
  /** How many errors the schema reported in all. */
  errorCount: number;
}

function bounded(message: string): string {
  return message.length <= SCHEMA_ERROR_MAX_CHARS
    ? message
    : `${message.slice(0, SCHEMA_ERROR_MAX_CHARS - 1)}…`;
}

/**
 * Structure first (throws `IsdocInvalidError` for what is not an ISDOC of `documentNumber`), then
 * the schema's verdict.
 */
export async function checkIsdoc(
  bytes: Uint8Array,
  documentNumber: string,
  schema: IsdocSchema,
): Promise<IsdocVerdict> {
  validateIsdoc(new TextDecoder().decode(bytes), documentNumber);
  const verdict = await schema.validate(bytes);
  return {
    schema: schema.name,
    valid: verdict.valid,
    errors: verdict.errors.slice(0, SCHEMA_ERRORS_MAX).map(bounded),
    errorCount: verdict.errors.length,
  };
}
