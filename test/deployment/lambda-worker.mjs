// One Lambda execution environment: a worker thread with the function's own environment, which
// imports the bundle from the cloud assembly once (the cold start) and runs one invocation at a time.
import { parentPort, workerData } from 'node:worker_threads';

const { entry, functionName, functionArn, timeoutMs, memoryMb, logGroup } = workerData;
const module = await import(entry);
if (typeof module.handler !== 'function') throw new Error(`${entry} exports no handler`);

parentPort.on('message', async ({ id, event, requestId, traceId }) => {
  const deadline = Date.now() + timeoutMs;
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
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done() {},
    fail() {},
    succeed() {},
  };
  let timer;
  try {
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Task timed out after ${timeoutMs / 1000} seconds`)),
        timeoutMs,
      );
    });
    const result = await Promise.race([module.handler(event, context), timeout]);
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
  } finally {
    clearTimeout(timer);
  }
});
parentPort.postMessage({ ready: true });
