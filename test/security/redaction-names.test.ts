/** The redaction masks secrets, not the names that happen to contain one. */
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED, redactText, registerSecretValue } from '#functions/shared/logger.js';

describe('redaction: secrets, not names', () => {
  it('a secret that is part of a connection name leaves the name whole', () => {
    registerSecretValue('acme-shop');
    expect(redactText('connection acme-shop-2 polled')).toBe('connection acme-shop-2 polled');
    expect(redactText('connection eu-acme-shop polled')).toBe('connection eu-acme-shop polled');
    expect(redactText('connection acme-shop_2 polled')).toBe('connection acme-shop_2 polled');
  });

  it('the same secret standing whole is masked wherever it appears', () => {
    registerSecretValue('acme-shop');
    for (const [text, masked] of [
      ['acme-shop', REDACTED],
      ['apikey=acme-shop&x=1', `apikey=${REDACTED}&x=1`],
      ['{"key":"acme-shop"}', `{"key":"${REDACTED}"}`],
      ['Bearer acme-shop', `Bearer ${REDACTED}`],
      ['key acme-shop.', `key ${REDACTED}.`],
      ['acme-shop acme-shop-2 acme-shop', `${REDACTED} acme-shop-2 ${REDACTED}`],
    ]) {
      expect(redactText(text as string)).toBe(masked);
    }
  });

  it('a log line keeps the connection name and masks the secret in the same line', () => {
    registerSecretValue('sandbox-k');
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', sink: (l) => lines.push(l) });
    logger.warn('action refused for connection', {
      connection: 'sandbox-k-2',
      note: 'key sandbox-k was refused',
    });
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line.connection).toBe('sandbox-k-2');
    expect(line.note).toBe(`key ${REDACTED} was refused`);
  });
});
