import * as z from 'zod';
import { defineCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { UsageError } from '../usage-error.js';

export const sandboxCommand = defineCommand({
  name: 'sandbox',
  summary:
    'Start only the sandbox (the simulated accounting service) until Ctrl-C; --help lists its options.',
  flags: {},
  passthrough: true,
  async help() {
    const { sandboxHelp } = await import('#sandbox/main.js');
    return sandboxHelp();
  },
  schema: z.object({ positionals: z.array(z.string()) }),
  async run(_options, ctx, argv) {
    const { runSandboxCli, SandboxCliError } = await import('#sandbox/main.js');
    let sandbox: Awaited<ReturnType<typeof runSandboxCli>>;
    try {
      sandbox = await runSandboxCli(argv, { env: ctx.env, stdout: (text) => ctx.stdout.write(`${text}\n`) });
    } catch (error) {
      if (error instanceof SandboxCliError) throw new UsageError(error.message, 'sandbox', { cause: error });
      throw error;
    }
    if (!sandbox) return EXIT.ok;
    ctx.stdout.write('Ctrl-C to stop\n');
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await sandbox.close();
    return EXIT.interrupted;
  },
});
