import { type Sandbox, type SandboxOptions, startSandbox } from '#sandbox/index.js';

export const TRACE_ID = /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/;

export class ManualClock {
  constructor(public ms = Date.parse('2026-06-01T10:00:00.000Z')) {}
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface Harness {
  sandbox: Sandbox;
  clock: ManualClock;
  /** fetch with the read/write API key unless `headers` say otherwise. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes in assertions
  getJson<T = any>(path: string): Promise<T>;
}

export async function harness(options: Partial<SandboxOptions> = {}): Promise<Harness> {
  const clock = new ManualClock();
  const sandbox = await startSandbox({
    sizes: { documents: 220, partners: 12, perCollection: {} },
    clock,
    ...options,
  });
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    const headers: Record<string, string> = {
      'Api-Key': sandbox.credentials.apiKey,
      ...(rest.headers as Record<string, string>),
    };
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(`${sandbox.baseUrl}${path}`, {
      ...rest,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
  };
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes in assertions
  const getJson = async (path: string): Promise<any> => {
    const res = await api(path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  return { sandbox, clock, api, getJson };
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body
export function expectProblemShape(body: any, status: number): void {
  if (body.type !== `https://httpstatuses.io/${status}`) throw new Error(`type was ${body.type}`);
  if (body.status !== status) throw new Error(`status was ${body.status}`);
  if (typeof body.title !== 'string' || body.title === '') throw new Error('title missing');
  if (!TRACE_ID.test(body.traceId)) throw new Error(`traceId ${body.traceId}`);
}

/** The parsed JSON body of a response, for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes in assertions
export async function jsonOf(res: Response): Promise<any> {
  return res.json();
}
