/**
 * In-memory `ObjectStore` with S3's semantics: `ifNoneMatch` refuses an existing key, a given
 * SHA-256 is verified against the body, `list` returns keys in lexicographic order.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ChecksumMismatchError, ObjectExistsError } from '#functions/core/errors.js';
import type { ObjectInfo, ObjectStore, PutObjectInput } from '#functions/core/ports.js';

interface StoredObject {
  bytes: Buffer;
  contentType: string;
  checksumSha256: string;
  metadata: Record<string, string>;
  lastModified: Date;
}

export interface MemoryObjectStore extends ObjectStore {
  /** Every key currently stored, sorted. */
  keys(): string[];
}

async function toBuffer(body: PutObjectInput['body']): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

export function createMemoryObjectStore(options: { now?: () => Date } = {}): MemoryObjectStore {
  const now = options.now ?? (() => new Date());
  const objects = new Map<string, StoredObject>();

  const info = (key: string, object: StoredObject): ObjectInfo => ({
    key,
    size: object.bytes.length,
    contentType: object.contentType,
    checksumSha256: object.checksumSha256,
    metadata: { ...object.metadata },
    lastModified: object.lastModified,
  });

  return {
    async put(input: PutObjectInput): Promise<void> {
      const bytes = await toBuffer(input.body);
      const checksumSha256 = createHash('sha256').update(bytes).digest('base64');
      if (input.checksumSha256 !== undefined && input.checksumSha256 !== checksumSha256) {
        throw new ChecksumMismatchError(input.key);
      }
      // Checked after the body was read, as S3 decides at the end of the upload.
      if (input.ifNoneMatch && objects.has(input.key)) throw new ObjectExistsError(input.key);
      objects.set(input.key, {
        bytes,
        contentType: input.contentType,
        checksumSha256,
        metadata: { ...input.metadata },
        lastModified: now(),
      });
    },
    async head(key: string): Promise<ObjectInfo | undefined> {
      const object = objects.get(key);
      return object === undefined ? undefined : info(key, object);
    },
    async get(key: string): Promise<Readable | undefined> {
      const object = objects.get(key);
      return object === undefined ? undefined : Readable.from([object.bytes]);
    },
    async *list(prefix: string): AsyncIterable<ObjectInfo> {
      const keys = [...objects.keys()].filter((key) => key.startsWith(prefix)).sort();
      for (const key of keys) {
        const object = objects.get(key);
        if (object !== undefined) {
          const { contentType: _c, checksumSha256: _s, ...listed } = info(key, object);
          yield { ...listed, metadata: {} };
        }
      }
    },
    keys: () => [...objects.keys()].sort(),
  };
}
