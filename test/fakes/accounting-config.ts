/** Client configurations for tests: no real waiting (tiny backoffs are slept on a manual clock anyway). */
import {
  type AccountingConfig,
  type AccountingConfigInput,
  parseAccountingConfig,
} from '#functions/accounting/config.js';

export const TEST_API_KEY = 'ak_live_7Hq2LmZ9xR4tV8bN3cK6pW1sY5dF0gJ';
export const TEST_CLIENT_ID = 'c6f1d2e4-client-7788';
export const TEST_CLIENT_SECRET = 'cs_9fK2mQ7vX4bT8nR1wL6zH3yP5dJ0aE';

export function apiKeyConfig(baseUrl: string, more: AccountingConfigInput = {}): AccountingConfig {
  return parseAccountingConfig({ baseUrl, apiKey: TEST_API_KEY, ...more });
}

export function oauthConfig(baseUrl: string, more: AccountingConfigInput = {}): AccountingConfig {
  return parseAccountingConfig({
    baseUrl,
    authUrl: `${baseUrl}/auth`,
    clientId: TEST_CLIENT_ID,
    clientSecret: TEST_CLIENT_SECRET,
    ...more,
  });
}
