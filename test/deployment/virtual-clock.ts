/**
 * The deployment's one clock. Queues, schedules, the stand-in and every function's worker read
 * it: real time plus an offset that only moves forward, when the deployment has nothing to do
 * until a later moment (a message's visibility, a schedule's next run, a retry's backoff).
 * Installed, it is the `Date` of this process too (the sandbox, the receivers and the tests'
 * signatures live on the same time as the functions).
 */
const RealDate = Date;

export class VirtualClock {
  private offset = 0;
  private installed = false;

  now(): number {
    return RealDate.now() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  advanceTo(ms: number): void {
    this.offset += Math.max(0, ms - this.now());
  }

  advanceBy(ms: number): void {
    this.offset += Math.max(0, ms);
  }

  /** `Date` of this process reads the clock (until `uninstall`). */
  install(): void {
    if (this.installed) return;
    const clock = this;
    class ShiftedDate extends RealDate {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(clock.now());
        else super(...(args as [string]));
      }
      static override now(): number {
        return clock.now();
      }
    }
    globalThis.Date = ShiftedDate as DateConstructor;
    this.installed = true;
  }

  uninstall(): void {
    if (!this.installed) return;
    globalThis.Date = RealDate;
    this.installed = false;
  }
}

/** `Date.now()` of the real world, whatever the clock says. */
export const realNow = () => RealDate.now();
