/**
 * Checks that bytes are an ISDOC invoice of the expected document before they are archived:
 * well-formed XML, root element `Invoice` in the ISDOC namespace, a `version` attribute, and an
 * `ID` equal to the document number.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { IsdocInvalidError } from './errors.js';

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
