/**
 * The client's typed methods over a fake that answers operations as the service would (raw JSON):
 * each answer is read as the endpoint catalog says, with the client's own reading, so a test of
 * core still proves what an answer that does not match the contract comes to.
 */
import type { AccountingApi, CallInput } from '#functions/accounting/api.js';
import { readAnswer } from '#functions/accounting/calls.js';
import type { ServiceVariant } from '#functions/accounting/collections.js';
import { findOperation } from '#functions/accounting/endpoints.js';
import { type OperationMethods, operationMethods } from '#functions/accounting/operation-methods.js';

export type RawAnswers = (operationId: string, input: CallInput) => Promise<unknown>;

export function answeringRaw(raw: RawAnswers, variant: ServiceVariant = 'sk'): OperationMethods {
  return operationMethods(async (operationId, input) => {
    const op = findOperation(operationId, variant);
    if (!op) throw new Error(`no operation ${operationId} in the ${variant} catalog`);
    return readAnswer(op, await raw(operationId, input), { method: op.method, path: op.path });
  });
}

/** An `AccountingApi` fake whose only working methods are the typed methods over `raw`. */
export function rawAnswersApi(raw: RawAnswers, variant: ServiceVariant = 'sk'): AccountingApi {
  return answeringRaw(raw, variant) as unknown as AccountingApi;
}
