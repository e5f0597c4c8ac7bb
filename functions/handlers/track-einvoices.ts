/**
 * E-invoice tracker Lambda, invoked by a schedule (see `scheduledActions` in functions/core/routes.ts):
 * polls the status of every open sending of the connection and emits each transition in order.
 * A 429/5xx ends the pass with an error after saving what was learned; the next run continues.
 */
import { addLambdaContext } from '../adapters/aws/lambda-logger.js';
import { type TrackerDeps, type TrackResult, trackEInvoices } from '../core/actions/einvoice-tracking.js';
import { loadActionEnvironment, sendingsFromEnvironment } from './action-runtime.js';
import { lazyHandler } from './lazy-handler.js';

const NAME = 'track-einvoices';

export interface TrackHandlerDeps extends TrackerDeps {
  connection: string;
}

export function createHandler(deps: TrackHandlerDeps) {
  return async (_event?: unknown, context?: unknown): Promise<TrackResult> => {
    addLambdaContext(deps.logger, context);
    return trackEInvoices(deps, deps.connection);
  };
}

export async function createDepsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<TrackHandlerDeps> {
  const e = await loadActionEnvironment(env, NAME);
  return {
    api: e.api,
    sendings: sendingsFromEnvironment(e),
    publisher: e.aws.publisher(),
    clock: e.clock,
    logger: e.logger,
    connection: e.actions.connection,
  };
}

export const handler = lazyHandler<unknown, unknown, TrackResult>(async () =>
  createHandler(await createDepsFromEnv(process.env)),
);
