/**
 * The AWS SDK's default credentials, as they resolve in Lambda: from the environment the runtime
 * sets (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), the first link of the
 * SDK's default chain. Bundles put this module in place of `@aws-sdk/credential-provider-node`
 * (scripts/bundle-function.mjs): the chain's other links (SSO, shared files, processes, web
 * identity, container and instance metadata), never reached in Lambda, and the STS and SSO clients
 * they bring stay out of the bundle (about 110 KB). Tests and the local runtime keep the full chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** Same name and shape as `@aws-sdk/credential-provider-node`'s export, which the SDK clients call. */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
