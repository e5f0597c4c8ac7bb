import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ObjectExistsError } from '../../functions/core/errors.js';
import type { ObjectInfo, ObjectStore, PutObjectInput } from '../../functions/core/ports.js';

/** A minimal in-memory ObjectStore for tests of core. */
export class MemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, { body: Buffer; info: ObjectInfo }>();
  puts = 0;

  async put(input: PutObjectInput): Promise<void> {
    if (input.ifNoneMatch && this.objects.has(input.key)) throw new ObjectExistsError(input.key);
    let body: Buffer;
    if (typeof input.body === 'string') body = Buffer.from(input.body);
    else if (input.body instanceof Uint8Array) body = Buffer.from(input.body);
    else {
      const chunks: Buffer[] = [];
      for await (const c of input.body) chunks.push(Buffer.from(c));
      body = Buffer.concat(chunks);
    }
    this.puts++;
    this.objects.set(input.key, {
      body,
      info: {
        key: input.key,
        size: body.length,
        contentType: input.contentType,
        checksumSha256: createHash('sha256').update(body).digest('base64'),
        metadata: input.metadata ?? {},
      },
    });
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    return this.objects.get(key)?.info;
  }

  async get(key: string): Promise<Readable | undefined> {
    const o = this.objects.get(key);
    return o ? Readable.from([o.body]) : undefined;
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    for (const [key, o] of [...this.objects].sort(([a], [b]) => a.localeCompare(b))) {
      if (key.startsWith(prefix)) yield o.info;
    }
  }
}
