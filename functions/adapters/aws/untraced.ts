/**
 * Tracing off (the default deployment): what a bundle carries instead of `lambda-tracer.ts`
 * (scripts/bundle-function.mjs swaps the module), with the same exports. Nothing is traced and the
 * X-Ray SDK is not in the bundle.
 */
import type { ClientTracing } from './client-tracing.js';

export const tracedHandler: ClientTracing['tracedHandler'] = (_name, handler) => handler;

export const instrumentClient: ClientTracing['instrumentClient'] = (client) => client;
