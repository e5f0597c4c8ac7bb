/**
 * Whether the service answers at all, before a command off the sandbox starts polling: one TCP
 * connection to the host and port of its URL (no request, no credentials, no quota). A refused,
 * unresolvable or silent address fails here in one plain error, instead of every collection's
 * request retrying and failing on its own.
 */
import { connect } from 'node:net';

/** How long the connection may take before the address counts as not answering. */
export const PROBE_TIMEOUT_MS = 5_000;

/** The service's address refused the connection, did not resolve or did not answer in time. */
export class ServiceUnreachableError extends Error {
  override readonly name = 'ServiceUnreachableError';
  constructor(
    readonly url: string,
    readonly code: string,
    readonly setting: string,
    options?: ErrorOptions,
  ) {
    super(
      `cannot reach the service at ${url} (${code}): check ${setting} and that the service is up`,
      options,
    );
  }
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'http:' ? 80 : 443;
}

/**
 * Resolves once a TCP connection to `baseUrl`'s host and port is open (then closes it); rejects
 * with a `ServiceUnreachableError` naming the URL and `setting` (what to check) otherwise.
 */
export function probeService(
  baseUrl: string,
  setting: string,
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<void> {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: portOf(url) });
    const fail = (code: string, cause?: unknown) => {
      socket.destroy();
      reject(new ServiceUnreachableError(url.origin, code, setting, cause === undefined ? {} : { cause }));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer in ${timeoutMs} ms`));
    socket.once('connect', () => {
      socket.end();
      socket.destroy();
      resolve();
    });
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message, error));
  });
}
