/**
 * How long a test waits on a condition that a real server decides (dynalite, s3rver, the sandbox,
 * a child process). `vi.waitFor` gives up after 1 s by default, which a busy machine exceeds while
 * the condition is still on its way; the bound below is there to end a broken test, not to
 * measure speed, so it is well under the test timeout (30 s) and far above a normal wait.
 *
 *   await vi.waitFor(() => expect(held.done).toBe(true), SERVER_WAIT);
 */
export const SERVER_WAIT_MS = 20_000;
export const SERVER_WAIT = { timeout: SERVER_WAIT_MS, interval: 20 } as const;
