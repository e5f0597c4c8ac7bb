import { tracedHandler } from '../adapters/aws/lambda-tracer.js';

/**
 * A Lambda entry point that builds its handler on first use and reuses it; a failed build
 * (e.g. Secrets Manager unreachable) is retried on the next invocation. Each invocation, build
 * included, runs in an X-Ray subsegment named after the function's service when tracing is on.
 */
export function lazyHandler<E, C, R>(build: () => Promise<(event: E, context: C) => Promise<R>>) {
  let built: Promise<(event: E, context: C) => Promise<R>> | undefined;
  const invoke = async (event: E, context: C): Promise<R> => {
    if (!built) {
      const attempt = build();
      built = attempt;
      attempt.catch(() => {
        if (built === attempt) built = undefined;
      });
    }
    return (await built)(event, context);
  };
  return tracedHandler(process.env.POWERTOOLS_SERVICE_NAME ?? 'handler', invoke);
}
