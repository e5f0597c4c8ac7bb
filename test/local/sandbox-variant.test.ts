import { describe, expect, it } from 'vitest';
import type { CommandContext } from '#functions/local/command.js';
import { sandboxOptions } from '#functions/local/commands/runtime-command.js';

const options = (env: Record<string, string>) =>
  sandboxOptions(
    { command: 'run' } as Parameters<typeof sandboxOptions>[0],
    { env } as unknown as CommandContext,
  );

describe('the local runtime starts its sandbox in the variant the client speaks', () => {
  it('follows ACCOUNTING_SERVICE_VARIANT; SANDBOX_VARIANT wins; sk by default', async () => {
    expect((await options({ ACCOUNTING_SERVICE_VARIANT: 'cz' })).variant).toBe('cz');
    expect((await options({ ACCOUNTING_SERVICE_VARIANT: 'cz', SANDBOX_VARIANT: 'sk' })).variant).toBe('sk');
    expect((await options({})).variant).toBe('sk');
  });
});
