/**
 * What `cdk synth` prints when the app cannot be built: one line per problem, naming the setting
 * and how to give it, never a stack trace (the CLI prints the app's stderr as it is).
 */
import { ConfigError } from '../functions/shared/config.js';

/** Exit code of a synth refused for its settings (as the local CLI's usage errors). */
export const SETTINGS_EXIT_CODE = 2;
/** Exit code of a synth that failed for another reason. */
export const FAILURE_EXIT_CODE = 1;

/** The text and exit code for an error thrown while building or synthesizing the app. */
export function synthErrorReport(error: unknown): { text: string; code: number } {
  if (error instanceof ConfigError) {
    const lines = error.problems.map((p) => `error: ${p}`);
    lines.push(
      'Settings are given as `-c name=value` or ACCOUNTING_EVENTS_<NAME> (docs/deploy.md#configuration).',
    );
    return { text: `${lines.join('\n')}\n`, code: SETTINGS_EXIT_CODE };
  }
  const message = error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
  return { text: `error: ${message}\n`, code: FAILURE_EXIT_CODE };
}
