/** The local intake endpoint: node:http in front of the endpoint use case the Lambda runs. */
import { type IntakeHttpServer, startIntakeHttpServer } from '../adapters/local/intake-http-server.js';
import { type ReceiveDeps, receiveWebhook } from '../core/intake/receive-webhook.js';

export function createIntakeHttpServerFor(options: {
  port: number;
  host?: string;
  deps: ReceiveDeps;
}): Promise<IntakeHttpServer> {
  return startIntakeHttpServer({
    port: options.port,
    ...(options.host ? { host: options.host } : {}),
    maxBodyBytes: options.deps.config.maxBodyBytes,
    handle: (request) => receiveWebhook(options.deps, request),
    logger: options.deps.logger,
  });
}
