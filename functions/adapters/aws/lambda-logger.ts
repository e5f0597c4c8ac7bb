/**
 * The functions' logger on AWS: Powertools for AWS Lambda Logger, behind our `AppLogger` interface.
 *
 * - Every line carries the Lambda context once `addContext` has run for the invocation
 *   (`function_request_id`, `cold_start`, function name and ARN) and the X-Ray trace id.
 * - Redaction stays ours (`shared/logger.ts`): the formatter redacts the message and every attribute
 *   (sensitive keys and registered secret values, at any depth, errors included), so the rules and
 *   their tests are the same for the local runtime's logger and this one.
 */
import { LogFormatter, Logger, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { Context } from 'aws-lambda';
import {
  type AppLogger,
  type LogLevel,
  redactText,
  redactValue,
  registerSecretValue,
} from '#functions/shared/logger.js';

/** Applies our redaction to every attribute Powertools would print. */
class RedactingLogFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const base = {
      level: attributes.logLevel,
      message: redactText(attributes.message),
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: attributes.lambdaContext?.coldStart,
      function_name: attributes.lambdaContext?.functionName,
      function_arn: attributes.lambdaContext?.invokedFunctionArn,
      function_request_id: attributes.lambdaContext?.awsRequestId,
      xray_trace_id: attributes.xRayTraceId,
    };
    return new LogItem({ attributes: base }).addAttributes(redactValue(additional) as LogAttributes);
  }
}

const powertoolsLevel: Record<LogLevel, 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT'> = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  silent: 'SILENT',
};

export interface LambdaLoggerOptions {
  service: string;
  level: LogLevel;
  /** Keys put on every line (e.g. `connection`). */
  context?: Record<string, unknown>;
}

/** An `AppLogger` that writes through Powertools; `addContext` binds the invocation's Lambda context. */
export class LambdaLogger implements AppLogger {
  readonly level: LogLevel;
  readonly #logger: Logger;

  constructor(options: LambdaLoggerOptions, logger?: Logger) {
    this.level = options.level;
    this.#logger =
      logger ??
      new Logger({
        serviceName: options.service,
        logLevel: powertoolsLevel[options.level],
        logFormatter: new RedactingLogFormatter(),
        persistentKeys: options.context ?? {},
      });
  }

  /** Call once per invocation, before anything is logged. */
  addContext(context: Context): void {
    this.#logger.addContext(context);
  }

  debug(message: string, data?: Record<string, unknown>): void {
    this.#logger.debug(message, data ?? {});
  }
  info(message: string, data?: Record<string, unknown>): void {
    this.#logger.info(message, data ?? {});
  }
  warn(message: string, data?: Record<string, unknown>): void {
    this.#logger.warn(message, data ?? {});
  }
  error(message: string, data?: Record<string, unknown>): void {
    this.#logger.error(message, data ?? {});
  }
  addSecret(value: string): void {
    registerSecretValue(value);
  }
  child(context: Record<string, unknown>): LambdaLogger {
    return new LambdaLogger(
      { service: '', level: this.level },
      this.#logger.createChild({ persistentKeys: context }),
    );
  }
}

/** Binds the Lambda context when `logger` is a `LambdaLogger` (the local runtime passes other loggers). */
export function addLambdaContext(logger: unknown, context: unknown): void {
  // Powertools reads the context's fields it knows; a partial context (tests) leaves the others out.
  if (typeof context === 'object' && context !== null && logger instanceof LambdaLogger) {
    logger.addContext(context as Context);
  }
}
