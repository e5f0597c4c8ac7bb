/**
 * The authenticator in use, replaceable by credentials read again: after an authentication failure
 * (a 401 the current credentials cannot fix, or a token request refused) the client asks once for
 * fresh credentials — a secret replaced in Secrets Manager takes effect without waiting for Lambda
 * to recycle the container — then repeats the request once. Concurrent failures share one re-read.
 */
import type { Logger } from '../shared/logger.js';
import type { Authenticator } from './auth.js';
import type { Credentials } from './config.js';

export interface ReloadableAuth {
  current(): Authenticator;
  /** Reads the credentials again and switches to them; `false` when there is no source or it failed. */
  reload(): Promise<boolean>;
  /** Token requests of every authenticator used so far. */
  tokenRequests(): number;
  /** Times the credentials were read again. */
  reloads(): number;
}

export function createReloadableAuth(
  initial: Authenticator,
  build: (credentials: Credentials) => Authenticator,
  logger: Logger,
  reloadCredentials?: () => Promise<Credentials>,
): ReloadableAuth {
  let current = initial;
  let retiredTokenRequests = 0;
  let reloads = 0;
  let inflight: Promise<boolean> | undefined;

  const reloadOnce = async (): Promise<boolean> => {
    if (!reloadCredentials) return false;
    try {
      const next = build(await reloadCredentials());
      retiredTokenRequests += current.tokenRequests();
      current = next;
      reloads++;
      logger.info('accounting credentials read again after an authentication failure', { kind: next.kind });
      return true;
    } catch (error) {
      // Names only: a secret source's error never carries the value, but keep the message out anyway.
      logger.warn('accounting credentials could not be read again', {
        error: error instanceof Error ? error.name : 'unknown',
      });
      return false;
    }
  };

  return {
    current: () => current,
    reload() {
      inflight ??= reloadOnce().finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
    tokenRequests: () => retiredTokenRequests + current.tokenRequests(),
    reloads: () => reloads,
  };
}
