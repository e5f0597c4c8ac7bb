import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readStream, StreamTooLargeError } from '#functions/shared/read-stream.js';

const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

describe('readStream', () => {
  it('buffers every chunk, strings and bytes alike', async () => {
    expect((await readStream(Readable.from(['ab', Buffer.from('cd')]))).toString()).toBe('abcd');
  });

  it('accepts exactly maxBytes', async () => {
    expect((await readStream(chunks('abc', 'de'), { maxBytes: 5 })).toString()).toBe('abcde');
  });

  it('fails past maxBytes with StreamTooLargeError and destroys the stream', async () => {
    const stream = chunks('abc', 'def', 'ghi');
    const error = await readStream(stream, { maxBytes: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamTooLargeError);
    expect((error as StreamTooLargeError).limitBytes).toBe(5);
    expect(stream.destroyed).toBe(true);
  });

  it('keeps the first maxBytes with truncate', async () => {
    const stream = chunks('abc', 'def', 'ghi');
    expect((await readStream(stream, { maxBytes: 5, truncate: true })).toString()).toBe('abcde');
    expect(stream.destroyed).toBe(true);
  });
});
