import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addLambdaContext, LambdaLogger } from '#functions/adapters/aws/lambda-logger.js';
import { createLogger, REDACTED, registerSecretValue } from '#functions/shared/logger.js';

const context = {
  functionName: 'archive-isdoc',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:archive-isdoc',
  memoryLimitInMB: '512',
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

let lines: string[];
beforeEach(() => {
  lines = [];
  // Powertools writes through the console; take what reaches stdout and stderr.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => vi.restoreAllMocks());

const parsed = () =>
  lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

describe('LambdaLogger (Powertools)', () => {
  it('puts the Lambda request id and the cold-start flag on every line once the context is bound', () => {
    const logger = new LambdaLogger({
      service: 'archive-isdoc',
      level: 'info',
      context: { connection: 'demo' },
    });
    addLambdaContext(logger, context);
    logger.info('archive stored', { key: 'demo/IssuedInvoices/1.isdoc' });
    logger.child({ recordId: 'r-1' }).warn('archive retried', { attempt: 2 });
    const [first, second] = parsed();
    expect(first).toMatchObject({
      level: 'INFO',
      message: 'archive stored',
      service: 'archive-isdoc',
      function_request_id: context.awsRequestId,
      cold_start: expect.any(Boolean),
      connection: 'demo',
      key: 'demo/IssuedInvoices/1.isdoc',
    });
    expect(second).toMatchObject({ level: 'WARN', recordId: 'r-1', attempt: 2, connection: 'demo' });
  });

  it('applies the same redaction as the local logger: sensitive keys, registered values, errors', () => {
    const secret = 'sk-live-0123456789abcdef';
    registerSecretValue(secret);
    const logger = new LambdaLogger({ service: 'poll-changes', level: 'debug' });
    const local: string[] = [];
    const localLogger = createLogger({ level: 'debug', sink: (l) => local.push(l) });
    for (const l of [logger, localLogger]) {
      l.error(`token ${secret} refused`, {
        apiKey: 'anything',
        nested: { clientSecret: 'x', note: `value ${secret}` },
        error: new Error(`upstream said ${secret}`),
      });
    }
    const out = [...lines, ...local].join('\n');
    expect(out).not.toContain(secret);
    const [line] = parsed();
    expect(line.apiKey).toBe(REDACTED);
    expect(line.nested.clientSecret).toBe(REDACTED);
    expect(line.message).toBe(`token ${REDACTED} refused`);
  });

  it('drops lines below its level', () => {
    const logger = new LambdaLogger({ service: 's', level: 'warn' });
    logger.info('not shown');
    logger.warn('shown');
    expect(parsed().map((l) => l.message)).toEqual(['shown']);
  });
});

describe('lazyHandler (tracing outside Lambda)', () => {
  it('passes the event and context through, builds once, and retries a failed build', async () => {
    const { lazyHandler } = await import('#functions/handlers/lazy-handler.js');
    let builds = 0;
    const handler = lazyHandler(async () => {
      builds += 1;
      if (builds === 1) throw new Error('secrets unreachable');
      return async (event: { n: number }, ctx: { id: string }) => `${event.n}:${ctx.id}`;
    });
    await expect(handler({ n: 1 }, { id: 'a' })).rejects.toThrow('secrets unreachable');
    expect(await handler({ n: 2 }, { id: 'b' })).toBe('2:b');
    expect(await handler({ n: 3 }, { id: 'c' })).toBe('3:c');
    expect(builds).toBe(2);
  });
});
