/** The Shoptet twin's HTTP plumbing: JSON answers, Shoptet's response envelope, request bodies. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Shoptet's envelope: `data`, `errors`, `metadata.requestId`. */
export const envelope = (data: unknown, errors: unknown[] | null = null) => ({
  data,
  errors,
  metadata: { requestId: randomUUID() },
});

export const failure = (errorCode: string, message: string) =>
  envelope(null, [{ errorCode, message, instance: 'request' }]);

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
