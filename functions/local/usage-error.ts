/** A command line or configuration the CLI cannot act on; the CLI exits with code 2 and changes nothing. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** The subcommand whose `--help` explains the fix, when known. */
    readonly command?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
