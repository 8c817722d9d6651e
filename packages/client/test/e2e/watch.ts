/** Bounded waiting helpers for end-to-end tests: nothing here can wait forever. */
import type { TilecastEvent } from '../../src/index.js';

/** Resolves when `condition()` holds, checking on every `poke()`; rejects after `timeoutMs`. */
export function signalled() {
  const waiters = new Set<() => void>();
  return {
    poke: () => waiters.forEach((wake) => wake()),
    async until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
      if (condition()) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => (waiters.delete(check), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
        const check = () => {
          if (!condition()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
  };
}

/** A fetch that counts the `GET /events` streams it opened (status 200) and the `Last-Event-ID` each sent. */
export function watchedFetch(rewrite?: (headers: Record<string, string>) => void) {
  const change = signalled();
  const state = { opened: 0, lastEventIds: [] as (string | undefined)[] };
  const watched: typeof fetch = async (input, init) => {
    const isEvents = String(input).includes('/events');
    const headers = { ...(init?.headers as Record<string, string>) };
    if (isEvents) {
      rewrite?.(headers);
      state.lastEventIds.push(headers['last-event-id']);
    }
    const response = await fetch(input, { ...init, headers });
    if (isEvents && response.status === 200) state.opened += 1;
    change.poke();
    return response;
  };
  return { fetch: watched, state, opened: (count: number) => change.until(() => state.opened >= count, `${count} event streams`) };
}

/** Drains an events iterator in the background into `events`, until stopped. */
export function collect(iterator: AsyncGenerator<TilecastEvent>) {
  const change = signalled();
  const events: TilecastEvent[] = [];
  let failure: unknown;
  const done = (async () => {
    try {
      for await (const event of iterator) {
        events.push(event);
        change.poke();
      }
    } catch (error) {
      failure = error;
      change.poke();
    }
  })();
  return {
    events,
    get failure() {
      return failure;
    },
    ids: () => events.map((event) => event.id),
    count: (n: number, timeoutMs?: number) => change.until(() => events.length >= n || failure !== undefined, `${n} events`, timeoutMs),
    done,
  };
}
