/**
 * The Lambda host's failure semantics on a bundle of its own: an error that escapes the handler
 * after it returned control (a late throw), an exit and a timeout each fail the invocation in
 * flight, and the next invocation starts a new environment that answers; a function with
 * `ReservedConcurrentExecutions: 0` is throttled without running; a cold start refused (the role
 * not assumable) fails the invocation without running it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assembly, Json, Resource } from './assembly.js';
import { createLambdaHost, type FunctionInfo, type LambdaHost } from './lambda-host.js';
import { VirtualClock } from './virtual-clock.js';

const HANDLER = `
export async function handler(event) {
  if (event.mode === 'late') {
    setTimeout(() => { throw new Error('late failure'); }, 10);
    return new Promise(() => {});
  }
  if (event.mode === 'exit') process.exit(3);
  if (event.mode === 'hang') return new Promise(() => {});
  return { ok: true, now: Date.now() };
}
`;

let dir: string;
let host: LambdaHost;
let refuseColdStart = false;
const clock = new VirtualClock();

function fakeAssembly(assetDir: string): Assembly {
  const fn = (logicalId: string, extra: Json): Resource => ({
    stack: 's',
    logicalId,
    type: 'AWS::Lambda::Function',
    properties: {},
    ref: logicalId.toLowerCase(),
    attributes: { Arn: `arn:aws:lambda:eu-central-1:111111111111:function:${logicalId.toLowerCase()}` },
    ...extra,
  });
  const resources = [fn('Worker', {}), fn('Throttled', {})];
  const props: Record<string, Json> = {
    Worker: {
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Timeout: 1,
      Role: 'arn:aws:iam::111111111111:role/r',
    },
    Throttled: {
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Timeout: 1,
      Role: 'arn:aws:iam::111111111111:role/r',
      ReservedConcurrentExecutions: 0,
    },
  };
  return {
    outdir: assetDir,
    resources,
    props: (r) => props[r.logicalId],
    byType: (type) => resources.filter((r) => r.type === type),
    byLogicalId: (id) => resources.find((r) => r.logicalId === id) as Resource,
    byRefOrArn: () => undefined,
    assetDir: () => assetDir,
    identityPolicies: () => [],
    resourcePolicy: () => undefined,
    outputs: () => ({}),
    stackTags: () => ({}),
  };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lambda-host-'));
  writeFileSync(join(dir, 'index.mjs'), HANDLER);
  host = createLambdaHost(fakeAssembly(dir), 'http://127.0.0.1:1', {
    clock,
    coldStart: async () => (refuseColdStart ? 'the role cannot be assumed' : undefined),
  });
});

afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

const worker = (): FunctionInfo => host.byArnOrName('Worker');

describe('the Lambda host', () => {
  it('answers on the deployment clock', async () => {
    clock.advanceBy(3_600_000);
    const r = await host.invoke(worker(), { mode: 'ok' });
    expect(r.ok).toBe(true);
    expect(Math.abs((r.result as { now: number }).now - clock.now())).toBeLessThan(60_000);
  });

  it.each([
    ['late', 'Runtime.UnhandledError', 'late failure'],
    ['exit', 'Runtime.ExitError', 'exited with code 3'],
    ['hang', 'Sandbox.Timedout', 'Task timed out after 1.00 seconds'],
  ])(
    '%s: the invocation fails (%s) and the next one runs in a new environment',
    async (mode, name, message) => {
      const before = host.coldStarts.get('Worker') ?? 0;
      const failed = await host.invoke(worker(), { mode });
      expect(failed.ok).toBe(false);
      expect(failed.error?.name).toBe(name);
      expect(failed.error?.message).toContain(message);
      const next = await host.invoke(worker(), { mode: 'ok' });
      expect(next.ok).toBe(true);
      expect(host.coldStarts.get('Worker')).toBe(before + 1);
    },
    30_000,
  );

  it('throttles a function with ReservedConcurrentExecutions 0 without running it', async () => {
    const r = await host.invoke(host.byArnOrName('Throttled'), { mode: 'ok' });
    expect(r.error?.name).toBe('TooManyRequestsException');
    expect(r.error?.message).toContain('ReservedConcurrentExecutions 0');
    expect(host.coldStarts.get('Throttled')).toBeUndefined();
  });

  it('a refused cold start fails the invocation without running it', async () => {
    await host.invoke(worker(), { mode: 'exit' });
    refuseColdStart = true;
    try {
      const r = await host.invoke(worker(), { mode: 'ok' });
      expect(r.error?.name).toBe('Lambda.ColdStartRefused');
      expect(r.error?.message).toContain('the role cannot be assumed');
    } finally {
      refuseColdStart = false;
    }
  });
});
