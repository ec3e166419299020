/** Time, behind an interface: the wall clock in the server, a virtual clock in tests and the simulator. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const wallClock: Clock = { now: () => Date.now() };

export function isoAt(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
