/**
 * Compact storage of id sets in the object store: one id per line, gzip. 100k GUIDs take ~1.7 MB.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { readStream } from '#functions/shared/read-stream.js';
import type { ObjectStore } from '../ports.js';

async function readBody(store: ObjectStore, key: string): Promise<Buffer | undefined> {
  const stream = await store.get(key);
  if (!stream) return undefined;
  return readStream(stream);
}

async function writeBody(store: ObjectStore, key: string, text: string, contentType: string): Promise<void> {
  const body = gzipSync(Buffer.from(text, 'utf8'));
  await store.put({
    key,
    body: Readable.from([body]),
    contentType,
    contentLength: body.length,
    checksumSha256: createHash('sha256').update(body).digest('base64'),
    metadata: { 'content-encoding': 'gzip' },
  });
}

export async function readIdList(store: ObjectStore, key: string): Promise<string[] | undefined> {
  const body = await readBody(store, key);
  if (!body) return undefined;
  const text = gunzipSync(body).toString('utf8');
  return text.length === 0 ? [] : text.split('\n');
}

export async function writeIdList(store: ObjectStore, key: string, ids: readonly string[]): Promise<void> {
  await writeBody(store, key, ids.join('\n'), 'text/plain');
}

export async function readSnapshot(
  store: ObjectStore,
  key: string,
): Promise<Map<string, string> | undefined> {
  const body = await readBody(store, key);
  if (!body) return undefined;
  return new Map(Object.entries(JSON.parse(gunzipSync(body).toString('utf8')) as Record<string, string>));
}

export async function writeSnapshot(
  store: ObjectStore,
  key: string,
  hashes: Map<string, string>,
): Promise<void> {
  await writeBody(store, key, JSON.stringify(Object.fromEntries(hashes)), 'application/json');
}
