/**
 * X-Ray tracing for the functions, when a deployment turns it on (`tracing`, docs/deploy.md):
 * Powertools for AWS Lambda Tracer. Without tracing the bundle carries `untraced.ts` in its place
 * (scripts/bundle-function.mjs), which has the same exports and no X-Ray SDK.
 *
 * - `tracedHandler` opens a `## <name>` subsegment per invocation, annotates the cold start and the
 *   service, and records an error as metadata; the response is not recorded (it may carry records).
 * - `instrumentClient` captures an AWS SDK v3 client, so DynamoDB, S3, EventBridge, SQS and Secrets
 *   Manager calls appear as subsegments; outgoing HTTP to the accounting service (undici) is captured
 *   by the tracer's HTTP instrumentation.
 * Outside Lambda the tracer disables itself, so tests and the local runtime trace nothing.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import type { ClientTracing } from './client-tracing.js';

let tracer: Tracer | undefined;

/** One tracer per container; its service name comes from `POWERTOOLS_SERVICE_NAME` (set by infra). */
function containerTracer(): Tracer {
  tracer ??= new Tracer({ captureHTTPsRequests: true });
  return tracer;
}

/** Wraps a Lambda entry point in a per-invocation subsegment. */
export const tracedHandler: ClientTracing['tracedHandler'] = (name, handler) => {
  return async (event, context) => {
    const t = containerTracer();
    const parent = t.getSegment();
    const segment = parent?.addNewSubsegment(`## ${name}`);
    if (segment) t.setSegment(segment);
    t.annotateColdStart();
    t.addServiceNameAnnotation();
    try {
      return await handler(event, context);
    } catch (error) {
      t.addErrorAsMetadata(error as Error);
      throw error;
    } finally {
      segment?.close();
      if (parent) t.setSegment(parent);
    }
  };
};

/** Captures an AWS SDK v3 client's calls as subsegments (no-op when tracing is off). */
export const instrumentClient: ClientTracing['instrumentClient'] = (client) =>
  containerTracer().captureAWSv3Client(client);
