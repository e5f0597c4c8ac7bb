/**
 * While the live view owns the terminal, what a library prints with `console` becomes a warning
 * of the run: printed as it is, its lines would scroll the frame up (the AWS SDK's HTTP handler,
 * for one, prints three lines when its sockets are saturated, as when a dozen connections poll the
 * embedded stores at once).
 */
import { format } from 'node:util';

const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

/** Sends `console` output to `warn` (one call per console call) until the returned restore is called. */
export function captureConsole(warn: (text: string) => void): () => void {
  const saved = METHODS.map((name) => [name, console[name]] as const);
  for (const name of METHODS) {
    console[name] = (...args: unknown[]) => warn(format(...args).trim());
  }
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    for (const [name, method] of saved) console[name] = method;
  };
}
