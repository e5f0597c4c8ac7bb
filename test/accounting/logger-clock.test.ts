import { describe, expect, it } from 'vitest';
import { Secret } from '#functions/accounting/secret.js';
import { createManualClock, systemClock } from '#functions/shared/clock.js';
import { loadLogLevel } from '#functions/shared/config.js';
import { createLogger, isSensitiveKey, redactText } from '#functions/shared/logger.js';

describe('logger', () => {
  it('writes one JSON object per line with constant message and data in keys', () => {
    const lines: string[] = [];
    const clock = createManualClock({ start: '2026-05-01T12:00:00Z' });
    const logger = createLogger({
      sink: (l) => lines.push(l),
      service: 'poller',
      now: clock.now,
      context: { connection: 'c1' },
    });
    logger.info('events published', { count: 3 });
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      level: 'INFO',
      message: 'events published',
      timestamp: '2026-05-01T12:00:00.000Z',
      service: 'poller',
      connection: 'c1',
      count: 3,
    });
  });

  it('filters by level and formats pretty lines', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', format: 'pretty', sink: (l) => lines.push(l) });
    logger.debug('d');
    logger.info('i');
    logger.warn('w', { a: 1 });
    logger.error('e');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/WARN +w \{"a":1\}$/);
    expect(loadLogLevel({ LOG_LEVEL: 'WARNING' })).toBe('warn');
    expect(loadLogLevel({ LOG_LEVEL: ' ' })).toBe('info');
    expect(() => loadLogLevel({ LOG_LEVEL: 'nonsense' })).toThrow(
      /LOG_LEVEL: expected one of debug, info, warn, error, silent/,
    );
  });

  it('redacts credential keys at any depth, registered values anywhere, and Secret objects', () => {
    const lines: string[] = [];
    const logger = createLogger({ sink: (l) => lines.push(l), redact: ['extra-secret-value'] });
    const secret = new Secret('registered-secret-123');
    const error = new Error('failed with registered-secret-123');
    logger.error('call failed', {
      headers: { Authorization: 'Bearer abc', 'Api-Key': 'k', accept: 'json' },
      nested: [{ clientSecret: 'cs', note: 'see extra-secret-value here' }],
      secret,
      error,
      tokenType: 'Bearer',
    });
    const text = lines.join('\n');
    expect(text).not.toContain('registered-secret-123');
    expect(text).not.toContain('extra-secret-value');
    expect(text).not.toContain('Bearer abc');
    const entry = JSON.parse(lines[0] ?? '');
    expect(entry.headers).toEqual({ Authorization: '[redacted]', 'Api-Key': '[redacted]', accept: 'json' });
    expect(entry.nested[0].clientSecret).toBe('[redacted]');
    expect(entry.secret).toBe('[redacted]');
    expect(entry.error.message).toBe('failed with [redacted]');
    expect(entry.tokenType).toBe('Bearer');
    expect(redactText('x registered-secret-123 y')).toBe('x [redacted] y');
    expect(['apiKey', 'access_token', 'client-secret', 'password'].every(isSensitiveKey)).toBe(true);
    expect(['tokenType', 'tokenRequests', 'path'].some(isSensitiveKey)).toBe(false);
  });

  it('survives circular data', () => {
    const lines: string[] = [];
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    createLogger({ sink: (l) => lines.push(l) }).info('circular', { a });
    expect(JSON.parse(lines[0] ?? '').a.self).toBe('[circular]');
  });
});

describe('clocks', () => {
  it('manual clock: sleepers resolve when time is advanced past them', async () => {
    const clock = createManualClock({ start: 0 });
    const order: number[] = [];
    const a = clock.sleep(100).then(() => order.push(100));
    const b = clock.sleep(50).then(() => order.push(50));
    expect(clock.pending()).toBe(2);
    clock.advance(60);
    await b;
    expect(order).toEqual([50]);
    clock.advance(40);
    await a;
    expect(order).toEqual([50, 100]);
    expect(clock.now().getTime()).toBe(100);
    expect(clock.sleeps).toEqual([100, 50]);
  });

  it('manual clock: sleep rejects on abort; auto-advance moves time at once', async () => {
    const clock = createManualClock({ start: 0 });
    const controller = new AbortController();
    const pending = clock.sleep(1_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(clock.pending()).toBe(0);
    const auto = createManualClock({ start: 0, autoAdvance: true });
    await auto.sleep(5_000);
    expect(auto.now().getTime()).toBe(5_000);
  });

  it('system clock sleeps and honours abort', async () => {
    await systemClock.sleep(1);
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(systemClock.sleep(10_000, controller.signal)).rejects.toThrow('gone');
    expect(systemClock.now()).toBeInstanceOf(Date);
  });
});
