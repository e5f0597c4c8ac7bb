/** Reading a byte stream into memory, with an optional cap — the one implementation every layer uses. */

/** The stream held more than the cap allowed; it was destroyed. */
export class StreamTooLargeError extends Error {
  override readonly name = 'StreamTooLargeError';
  constructor(
    readonly limitBytes: number,
    options?: { cause?: unknown },
  ) {
    super(`stream exceeds ${limitBytes} bytes`, options);
  }
}

interface ByteStream extends AsyncIterable<unknown> {
  destroy(error?: Error): unknown;
}

export interface ReadStreamOptions {
  /** Most bytes kept; more is an error, or the rest is dropped with `truncate`. */
  maxBytes?: number;
  /** Keep the first `maxBytes` and stop reading instead of failing (error bodies, logs). */
  truncate?: boolean;
}

/** Buffers `stream`; past `maxBytes` it destroys the stream and throws `StreamTooLargeError` (or truncates). */
export async function readStream(stream: ByteStream, options: ReadStreamOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string | Uint8Array);
    if (size + buf.length > maxBytes) {
      stream.destroy();
      if (!options.truncate) throw new StreamTooLargeError(maxBytes);
      chunks.push(buf.subarray(0, maxBytes - size));
      size = maxBytes;
      break;
    }
    size += buf.length;
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}
