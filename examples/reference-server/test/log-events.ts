/** The reference server's log lines as the shutdown tests read them. */
import { expect } from 'vitest';

/** The server's structured log events (its JSON lines; the start-up banner's text lines are not events). */
export function logEvents(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Asserts that `output` logged an event matching each step (every field equal), in this order. */
export function expectLoggedInOrder(output: string, steps: ReadonlyArray<Record<string, unknown>>): void {
  const logged = logEvents(output);
  let at = 0;
  for (const step of steps) {
    const found = logged.findIndex((event, i) => i >= at && Object.entries(step).every(([key, value]) => event[key] === value));
    expect(found, `${JSON.stringify(step)} after event ${at} in:\n${output}`).toBeGreaterThanOrEqual(0);
    at = found;
  }
}
