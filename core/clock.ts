/** Time as a dependency (STYLE 11): lock expiry and history windows are testable without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
