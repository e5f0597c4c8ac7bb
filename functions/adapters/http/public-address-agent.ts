/**
 * An undici agent that connects only to addresses a deployed delivery may reach. The target's name
 * is resolved here, every address it resolves to is checked (`core/delivery/public-address.ts`),
 * and the connection goes to the checked address itself, so a second lookup cannot answer
 * otherwise (DNS rebinding); the peer address of the connected socket is checked once more. The
 * TLS server name stays the target's host name.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { metadataAddressReason, nonPublicAddressReason } from '#functions/core/delivery/public-address.js';

/** A target resolved to, or connected to, an address it may not reach. */
export class NonPublicAddressError extends Error {
  override readonly name = 'NonPublicAddressError';
}

export interface PublicAddressAgentOptions {
  /** Private and loopback addresses allowed too (never link-local or metadata ones). */
  privateTargets?: boolean;
  /** Resolves a host name to its addresses (default: the system resolver, every address). */
  resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
  /** Deadline of a connection, in ms (default 10 s). */
  connectTimeoutMs?: number;
}

export function publicAddressAgent(options: PublicAddressAgentOptions = {}): Agent {
  const reasonOf = options.privateTargets ? metadataAddressReason : nonPublicAddressReason;
  const resolve = options.resolve ?? ((host: string) => dns.lookup(host, { all: true, verbatim: true }));
  const connector = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
  const refuse = (host: string, address: string, reason: string) =>
    new NonPublicAddressError(`${host} is ${address}: ${reason}, not a delivery target`);
  return new Agent({
    connect: (opts, callback) => {
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      const addresses = isIP(host) ? Promise.resolve([{ address: host, family: isIP(host) }]) : resolve(host);
      addresses.then(
        (list) => {
          const first = list[0];
          if (!first) return callback(new NonPublicAddressError(`${host} resolves to no address`), null);
          for (const { address } of list) {
            const reason = reasonOf(address);
            if (reason) return callback(refuse(host, address, reason), null);
          }
          const servername = isIP(host) ? undefined : host;
          connector(
            { ...opts, hostname: first.address, ...(servername ? { servername } : {}) },
            (error, socket) => {
              if (error || !socket) return callback(error ?? new Error('no socket'), null);
              const peer = socket.remoteAddress ?? '';
              const reason = reasonOf(peer);
              if (reason) {
                socket.destroy();
                return callback(refuse(host, peer, reason), null);
              }
              return callback(null, socket);
            },
          );
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
      );
    },
  });
}
