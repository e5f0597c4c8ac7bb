import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesPattern, type PatternEvent } from '#functions/core/event-pattern.js';
import { routes } from '#functions/core/routes.js';

const event = (detailType: string, detail: unknown, source = 'accounting.demo'): PatternEvent => ({
  source,
  'detail-type': detailType,
  detail,
});

describe('matchesPattern', () => {
  it('matches detail-type and source as any-of lists', () => {
    const pattern = {
      source: ['accounting.demo', 'accounting.other'],
      'detail-type': ['A.Created', 'A.Updated'],
    };
    expect(matchesPattern(pattern, event('A.Updated', {}))).toBe(true);
    expect(matchesPattern(pattern, event('A.Deleted', {}))).toBe(false);
    expect(matchesPattern(pattern, event('A.Created', {}, 'elsewhere'))).toBe(false);
    expect(matchesPattern({ 'detail-type': ['A.Created'] }, event('A.Created', {}, 'any.source'))).toBe(true);
  });

  it('matches nested detail fields with exact values of the same type', () => {
    const pattern = {
      'detail-type': ['Order.Created'],
      detail: { record: { Status: ['Unfinished'], Lines: [3] } },
    };
    expect(
      matchesPattern(pattern, event('Order.Created', { record: { Status: 'Unfinished', Lines: 3 } })),
    ).toBe(true);
    expect(
      matchesPattern(pattern, event('Order.Created', { record: { Status: 'Finished', Lines: 3 } })),
    ).toBe(false);
    expect(
      matchesPattern(pattern, event('Order.Created', { record: { Status: 'Unfinished', Lines: '3' } })),
    ).toBe(false);
    expect(matchesPattern(pattern, event('Order.Created', { record: { Status: 'Unfinished' } }))).toBe(false);
    expect(matchesPattern(pattern, event('Order.Created', {}))).toBe(false);
    expect(matchesPattern(pattern, event('Order.Created', { record: 'Unfinished' }))).toBe(false);
  });

  it('matches booleans and null exactly; null does not match an absent field', () => {
    const pattern = { 'detail-type': ['X'], detail: { paid: [false], note: [null] } };
    expect(matchesPattern(pattern, event('X', { paid: false, note: null }))).toBe(true);
    expect(matchesPattern(pattern, event('X', { paid: false }))).toBe(false);
    expect(matchesPattern(pattern, event('X', { paid: 0, note: null }))).toBe(false);
  });

  it('matches prefix on strings only', () => {
    const pattern = { 'detail-type': ['X'], detail: { recordType: [{ prefix: 'Issued' }] } };
    expect(matchesPattern(pattern, event('X', { recordType: 'IssuedInvoice' }))).toBe(true);
    expect(matchesPattern(pattern, event('X', { recordType: 'ReceivedInvoice' }))).toBe(false);
    expect(
      matchesPattern({ 'detail-type': ['X'], detail: { n: [{ prefix: '1' }] } }, event('X', { n: 12 })),
    ).toBe(false);
  });

  it('matches anything-but a value or a list, and not an absent field', () => {
    const one = { 'detail-type': ['X'], detail: { Status: [{ 'anything-but': 'Cancelled' }] } };
    const many = {
      'detail-type': ['X'],
      detail: { Status: [{ 'anything-but': ['Cancelled', 'Finished'] }] },
    };
    expect(matchesPattern(one, event('X', { Status: 'Unfinished' }))).toBe(true);
    expect(matchesPattern(one, event('X', { Status: 'Cancelled' }))).toBe(false);
    expect(matchesPattern(one, event('X', {}))).toBe(false);
    expect(matchesPattern(many, event('X', { Status: 'Finished' }))).toBe(false);
    expect(matchesPattern(many, event('X', { Status: 'Open' }))).toBe(true);
  });

  it('matches exists true and false', () => {
    const present = { 'detail-type': ['X'], detail: { recordRef: [{ exists: true }] } };
    const absent = { 'detail-type': ['X'], detail: { recordRef: [{ exists: false }] } };
    expect(matchesPattern(present, event('X', { recordRef: 's3://b/k' }))).toBe(true);
    expect(matchesPattern(present, event('X', { recordRef: null }))).toBe(true);
    expect(matchesPattern(present, event('X', {}))).toBe(false);
    expect(matchesPattern(absent, event('X', {}))).toBe(true);
    expect(matchesPattern(absent, event('X', { recordRef: 'x' }))).toBe(false);
    // exists: false under a missing parent object matches, as on EventBridge.
    expect(
      matchesPattern({ 'detail-type': ['X'], detail: { a: { b: [{ exists: false }] } } }, event('X', {})),
    ).toBe(true);
  });

  it('matches an event array when any element matches', () => {
    const pattern = { 'detail-type': ['X'], detail: { tags: ['vip'] } };
    expect(matchesPattern(pattern, event('X', { tags: ['new', 'vip'] }))).toBe(true);
    expect(matchesPattern(pattern, event('X', { tags: ['new'] }))).toBe(false);
    expect(matchesPattern(pattern, event('X', { tags: [] }))).toBe(false);
  });

  it('routes the default table: an unfinished received order reaches the transfer route only', () => {
    const order = event(
      'ReceivedOrder.Created',
      { record: { Status: 'Unfinished', Id: 1 } },
      'accounting.default',
    );
    const matched = routes.filter((route) => matchesPattern(route.pattern, order)).map((r) => r.handler);
    expect(matched).toContain('transfer-documents');
    expect(matched).not.toContain('archive-isdoc');
    const finished = event(
      'ReceivedOrder.Created',
      { record: { Status: 'Finished', Id: 1 } },
      'accounting.default',
    );
    const foreign = event('ReceivedOrder.Created', { record: { Status: 'Unfinished', Id: 1 } });
    expect(routes.filter((route) => matchesPattern(route.pattern, foreign))).toEqual([]);
    expect(
      routes.filter((route) => matchesPattern(route.pattern, finished)).map((r) => r.handler),
    ).not.toContain('transfer-documents');
  });
});

describe('matchesPattern properties', () => {
  const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));

  it('an exact value matches itself and only equal values', () => {
    fc.assert(
      fc.property(scalar, scalar, (a, b) => {
        const pattern = { 'detail-type': ['X'], detail: { f: [a] } };
        expect(matchesPattern(pattern, event('X', { f: a }))).toBe(true);
        expect(matchesPattern(pattern, event('X', { f: b }))).toBe(Object.is(a, b) || a === b);
      }),
    );
  });

  it('prefix matches exactly the strings that start with it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 4 }), fc.string({ maxLength: 8 }), (prefix, value) => {
        const pattern = { 'detail-type': ['X'], detail: { f: [{ prefix }] } };
        expect(matchesPattern(pattern, event('X', { f: value }))).toBe(value.startsWith(prefix));
      }),
    );
  });

  it('anything-but is the complement of exact matching for present strings', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.string({ maxLength: 3 }),
        (list, value) => {
          const exact = matchesPattern(
            { 'detail-type': ['X'], detail: { f: list } },
            event('X', { f: value }),
          );
          const but = matchesPattern(
            { 'detail-type': ['X'], detail: { f: [{ 'anything-but': list }] } },
            event('X', { f: value }),
          );
          expect(but).toBe(!exact);
        },
      ),
    );
  });

  it('a list of alternatives matches when any single alternative does', () => {
    fc.assert(
      fc.property(fc.array(scalar, { minLength: 1, maxLength: 4 }), scalar, (alternatives, value) => {
        const whole = matchesPattern(
          { 'detail-type': ['X'], detail: { f: alternatives } },
          event('X', { f: value }),
        );
        const anyOne = alternatives.some((alt) =>
          matchesPattern({ 'detail-type': ['X'], detail: { f: [alt] } }, event('X', { f: value })),
        );
        expect(whole).toBe(anyOne);
      }),
    );
  });

  it('fields the pattern does not name do not change the outcome', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 4 }).filter((k) => k !== 'f' && k !== '__proto__'),
          scalar,
        ),
        scalar,
        scalar,
        (extra, patternValue, value) => {
          const pattern = { 'detail-type': ['X'], detail: { f: [patternValue] } };
          expect(matchesPattern(pattern, event('X', { ...extra, f: value }))).toBe(
            matchesPattern(pattern, event('X', { f: value })),
          );
        },
      ),
    );
  });
});
