/** One contract for every `ObjectStore`: the memory store and the S3 adapter (on s3rver) both run it. */
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { ObjectExistsError } from '#functions/core/errors.js';
import type { ObjectStore } from '#functions/core/ports.js';

export interface ObjectStoreCapabilities {
  /** Whether `ifNoneMatch` is enforced by the backing store (s3rver ignores it). */
  enforcesIfNoneMatch: boolean;
}

const sha256 = (body: string | Buffer) => createHash('sha256').update(body).digest('base64');

export function describeObjectStoreContract(
  name: string,
  factory: () => ObjectStore | Promise<ObjectStore>,
  capabilities: ObjectStoreCapabilities,
): void {
  describe(`ObjectStore contract: ${name}`, () => {
    const prefix = () => `isdoc/${randomUUID()}/`;

    it('stores a string body with content type, checksum and metadata', async () => {
      const store = await factory();
      const key = `${prefix()}2024/05/FV-1_42.isdoc`;
      const body = '<?xml version="1.0"?><Invoice/>';
      await store.put({
        key,
        body,
        contentType: 'application/xml',
        checksumSha256: sha256(body),
        metadata: { id: '42', number: 'FV-1' },
      });
      const info = await store.head(key);
      expect(info).toMatchObject({
        key,
        size: Buffer.byteLength(body),
        contentType: 'application/xml',
        checksumSha256: sha256(body),
        metadata: { id: '42', number: 'FV-1' },
      });
      expect(info?.lastModified).toBeInstanceOf(Date);
      const stream = await store.get(key);
      expect(stream).toBeDefined();
      expect(await text(stream as Readable)).toBe(body);
    });

    it('streams a Readable body of unknown length', async () => {
      const store = await factory();
      const key = `${prefix()}streamed.bin`;
      const parts = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000, i));
      await store.put({ key, body: Readable.from(parts), contentType: 'application/octet-stream' });
      const stream = await store.get(key);
      const chunks: Buffer[] = [];
      for await (const chunk of stream as Readable) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(Buffer.concat(parts))).toBe(true);
      expect((await store.head(key))?.size).toBe(50_000);
    });

    it('streams a Readable body with a known length and a Uint8Array body', async () => {
      const store = await factory();
      const p = prefix();
      await store.put({
        key: `${p}a`,
        body: Readable.from([Buffer.from('hello '), Buffer.from('world')]),
        contentLength: 11,
        contentType: 'text/plain',
      });
      await store.put({ key: `${p}b`, body: new TextEncoder().encode('bytes'), contentType: 'text/plain' });
      expect(await text((await store.get(`${p}a`)) as Readable)).toBe('hello world');
      expect(await text((await store.get(`${p}b`)) as Readable)).toBe('bytes');
    });

    it('returns undefined for a missing key on head and get', async () => {
      const store = await factory();
      expect(await store.head(`${prefix()}missing`)).toBeUndefined();
      expect(await store.get(`${prefix()}missing`)).toBeUndefined();
    });

    it('writes with ifNoneMatch when the key is free', async () => {
      const store = await factory();
      const key = `${prefix()}new`;
      await store.put({ key, body: 'v1', contentType: 'text/plain', ifNoneMatch: true });
      expect(await text((await store.get(key)) as Readable)).toBe('v1');
    });

    if (capabilities.enforcesIfNoneMatch) {
      it('refuses an ifNoneMatch write over an existing key and keeps the first body', async () => {
        const store = await factory();
        const key = `${prefix()}once`;
        await store.put({ key, body: 'v1', contentType: 'text/plain', ifNoneMatch: true });
        const error = await store
          .put({ key, body: 'v2', contentType: 'text/plain', ifNoneMatch: true })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ObjectExistsError);
        expect((error as ObjectExistsError).key).toBe(key);
        expect(await text((await store.get(key)) as Readable)).toBe('v1');
      });
    }

    it('overwrites without ifNoneMatch', async () => {
      const store = await factory();
      const key = `${prefix()}twice`;
      await store.put({ key, body: 'v1', contentType: 'text/plain' });
      await store.put({ key, body: 'v2!', contentType: 'text/plain' });
      expect(await text((await store.get(key)) as Readable)).toBe('v2!');
      expect((await store.head(key))?.size).toBe(3);
    });

    it('lists by prefix, in key order, only under the prefix', async () => {
      const store = await factory();
      const p = prefix();
      const keys = Array.from({ length: 7 }, (_, i) => `${p}${String(i).padStart(2, '0')}.xml`);
      for (const key of [...keys].reverse()) await store.put({ key, body: key, contentType: 'text/plain' });
      await store.put({ key: `${p.slice(0, -1)}-other/x`, body: 'x', contentType: 'text/plain' });
      const listed: { key: string; size: number }[] = [];
      for await (const info of store.list(p)) listed.push({ key: info.key, size: info.size });
      expect(listed).toEqual(keys.map((key) => ({ key, size: Buffer.byteLength(key) })));
    });

    it('lists nothing for an unused prefix', async () => {
      const store = await factory();
      const listed: string[] = [];
      for await (const info of store.list(prefix())) listed.push(info.key);
      expect(listed).toEqual([]);
    });
  });
}
