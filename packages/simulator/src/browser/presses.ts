/** `POST /device/presses` as a phone does it: one `request_id` per press, reused by every retry. */

export type PressOutcome = 'accepted' | 'rate_limited' | 'refused' | 'unsent';

export interface PressBody {
  owner: string;
  slug: string;
  action: string;
  value?: boolean;
}

/** Network errors and 5xx are retried; the same `request_id` makes a retry produce no second event. */
const ATTEMPTS = 4;

export async function sendPress(token: string, press: PressBody, log: (line: string) => void): Promise<PressOutcome> {
  const body = JSON.stringify({ ...press, request_id: crypto.randomUUID() });
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(250 * 2 ** attempt);
    const status = await post(token, body);
    if (status === 202) return 'accepted';
    if (status === 429) return 'rate_limited';
    if (status !== null && status < 500) {
      log(`press ${press.slug}/${press.action} refused: HTTP ${status}`);
      return 'refused';
    }
    log(`press ${press.slug}/${press.action}: ${status === null ? 'network error' : `HTTP ${status}`}, retrying`);
  }
  return 'unsent';
}

/** The response status, or null when no response came. */
async function post(token: string, body: string): Promise<number | null> {
  try {
    const response = await fetch('/device/presses', {
      method: 'POST',
      headers: { authorization: `Device ${token}`, 'content-type': 'application/json' },
      body,
    });
    await response.body?.cancel();
    return response.status;
  } catch {
    return null;
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
