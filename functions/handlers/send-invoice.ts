/**
 * Sending Lambda: consumes the `send-einvoice` and `send-email` routes' SQS queues (new issued
 * invoices of configured partners) and sends each invoice once through its configured channel.
 */
import type { SQSEvent } from 'aws-lambda';
import { type ActionEntry, createActionEntry } from '../core/actions/run-action.js';
import { type SendDeps, sendInvoice } from '../core/actions/send-invoice.js';
import {
  createSqsActionHandler,
  guardFromEnvironment,
  lazyHandler,
  loadActionEnvironment,
  type SqsActionHandler,
  sendingsFromEnvironment,
} from './action-runtime.js';

const NAME = 'send-invoice';

/** The core entry for one EventBridge event (the local runtime calls this; the SQS handler too). */
export function createEventEntry(deps: SendDeps): ActionEntry {
  return createActionEntry(NAME, deps.logger, (event, options) => sendInvoice(deps, event, options));
}

export function createHandler(deps: SendDeps): SqsActionHandler {
  return createSqsActionHandler(NAME, createEventEntry(deps), deps.logger);
}

export async function createDepsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<SendDeps> {
  const e = await loadActionEnvironment(env, NAME);
  return {
    api: e.api,
    publisher: e.aws.publisher(),
    clock: e.clock,
    logger: e.logger,
    guard: guardFromEnvironment(e),
    ...(e.actions.sending.einvoicePartners.length > 0 ? { sendings: sendingsFromEnvironment(e) } : {}),
    config: e.actions,
  };
}

export const handler = lazyHandler<
  SQSEvent,
  Parameters<SqsActionHandler>[1],
  Awaited<ReturnType<SqsActionHandler>>
>(async () => createHandler(await createDepsFromEnv(process.env)));
