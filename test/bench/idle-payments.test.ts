/**
 * The benchmark's idle figure with payments on: one request per payment list per idle cycle (the
 * documents' changed-since read), the change detector's one per collection besides, and a twelfth
 * of that when payment state is checked every 60 s at a 5 s poll.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { measureIdlePayments } from '#bench/idle-payments.js';
import { type Sandbox, startSandbox } from '#sandbox/index.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ sizes: { documents: 80, partners: 10, perCollection: {} } });
});
afterAll(async () => {
  await sandbox?.close();
});

it('an idle cycle costs one request per payment list, fewer on the slower cadence', async () => {
  const collections = ['IssuedInvoices', 'IssuedAdvanceInvoices', 'ReceivedOrders'] as const;
  const figures = await measureIdlePayments({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.credentials.apiKey,
    collections,
    pageSize: 100,
    cycles: 4,
    cadenceRounds: 1,
  });
  expect(figures).toEqual({
    paymentLists: 2,
    cycles: 4,
    requestsPerPaymentListPerCycle: 1,
    requestsPerCycle: collections.length + 2,
    slowerCadence: {
      pollIntervalSeconds: 5,
      paymentIntervalSeconds: 60,
      cycles: 12,
      requestsPerPaymentListPerCycle: 0.083,
    },
  });
});
