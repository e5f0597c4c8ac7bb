/**
 * X-Ray tracing for the functions (active tracing is on in infra): Powertools for AWS Lambda Tracer.
 *
 * - `tracedHandler` opens a `## <name>` subsegment per invocation, annotates the cold start and the
 *   service, and records an error as metadata; the response is not recorded (it may carry records).
 * - `instrumentClient` captures an AWS SDK v3 client, so DynamoDB, S3, EventBridge, SQS and Secrets
 *   Manager calls appear as subsegments; outgoing HTTP to the accounting service (undici) is captured
 *   by the tracer's HTTP instrumentation.
 * Outside Lambda the tracer disables itself, so tests and the local runtime trace nothing.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';

let tracer: Tracer | undefined;

/** One tracer per container; its service name comes from `POWERTOOLS_SERVICE_NAME` (set by infra). */
export function containerTracer(): Tracer {
  tracer ??= new Tracer({ captureHTTPsRequests: true });
  return tracer;
}

/** Wraps a Lambda entry point in a per-invocation subsegment. */
export function tracedHandler<E, C, R>(
  tracer: Tracer,
  name: string,
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  return async (event, context) => {
    const parent = tracer.getSegment();
    const segment = parent?.addNewSubsegment(`## ${name}`);
    if (segment) tracer.setSegment(segment);
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
    try {
      return await handler(event, context);
    } catch (error) {
      tracer.addErrorAsMetadata(error as Error);
      throw error;
    } finally {
      segment?.close();
      if (parent) tracer.setSegment(parent);
    }
  };
}

/** Captures an AWS SDK v3 client's calls as subsegments (no-op when tracing is off). */
export function instrumentClient<T>(client: T): T {
  return containerTracer().captureAWSv3Client(client);
}
