/**
 * The time an engine reads for what expires or is counted per window: rate-limit windows, session and API
 * key expiry. The system clock in every process; the test servers set a clock they can pin and move forward
 * (test/helpers/server.ts), so a test of an expiry or of a minute's window does not wait for the wall clock.
 * It is no setting: only code that holds the engine can change it.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
