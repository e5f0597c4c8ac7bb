// One Lambda execution environment: a worker thread with the function's own environment, which
// imports the bundle from the cloud assembly once (the cold start) and runs one invocation at a
// time. Its `Date` reads the deployment's clock (real time plus the offset each invocation
// carries). The host enforces the timeout: it ends this worker, as Lambda ends a timed-out
// environment; an uncaught error or an exit ends it too, and fails the invocation in flight.
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const RealDate = Date;
let offset = workerData.clockOffsetMs ?? 0;
class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset;
  }
}
globalThis.Date = ShiftedDate;

const { entry, functionName, functionArn, timeoutMs, memoryMb, logGroup } = workerData;
const module = await import(entry);
if (typeof module.handler !== 'function') throw new Error(`${entry} exports no handler`);

parentPort.on('message', async ({ id, event, requestId, traceId, clockOffsetMs }) => {
  offset = clockOffsetMs;
  const deadline = performance.now() + timeoutMs;
  process.env._X_AMZN_TRACE_ID = traceId;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: functionArn,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: logGroup,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, Math.floor(deadline - performance.now())),
    done() {},
    fail() {},
    succeed() {},
  };
  try {
    const result = await module.handler(event, context);
    parentPort.postMessage({
      id,
      ok: true,
      result: result === undefined ? null : JSON.parse(JSON.stringify(result)),
    });
  } catch (error) {
    parentPort.postMessage({
      id,
      ok: false,
      error: {
        name: error?.name ?? 'Error',
        message: String(error?.message ?? error),
        stack: String(error?.stack ?? ''),
      },
    });
  }
});
parentPort.postMessage({ ready: true });
