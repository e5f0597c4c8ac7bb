import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadIntakeConfig } from '#functions/core/intake/intake-config.js';
import { INTAKE_ENV } from '#functions/shared/intake-env-names.js';

const doc = readFileSync(new URL('../../docs/intake.md', import.meta.url), 'utf8');

describe('intake settings', () => {
  it('docs/intake.md documents every INTAKE_ variable, and no other', () => {
    const documented = new Set([...doc.matchAll(/`(INTAKE_[A-Z0-9_]+)`/g)].map((m) => m[1]));
    const names = new Set<string>(Object.values(INTAKE_ENV));
    expect([...names].filter((n) => !documented.has(n))).toEqual([]);
    expect([...documented].filter((n) => n !== undefined && !names.has(n))).toEqual([]);
  });

  it('names every bad setting and never echoes a secret', () => {
    const secret = 'short';
    let message = '';
    try {
      loadIntakeConfig({
        INTAKE_SHOPIFY_SECRET: secret,
        INTAKE_GENERIC_SECRET: 'not-a-standard-webhooks-secret!!',
        INTAKE_PARTNER_MATCH: 'phone',
        INTAKE_ORDER_TEXT: 'no placeholder',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    for (const name of [
      'INTAKE_SHOPIFY_SECRET',
      'INTAKE_GENERIC_SECRET',
      'INTAKE_PARTNER_MATCH',
      'INTAKE_ORDER_TEXT',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain('not-a-standard-webhooks-secret');
  });

  it('keeps the order number out of Doklad on the Czech variant', () => {
    expect(loadIntakeConfig({ ACCOUNTING_SERVICE_VARIANT: 'cz' }).mapping.orderNumberField).toBe('Note');
    expect(loadIntakeConfig({}).mapping.orderNumberField).toBe('Doklad');
    expect(() =>
      loadIntakeConfig({ ACCOUNTING_SERVICE_VARIANT: 'cz', INTAKE_ORDER_NUMBER_FIELD: 'Doklad' }),
    ).toThrow(/INTAKE_ORDER_NUMBER_FIELD/);
  });
});
