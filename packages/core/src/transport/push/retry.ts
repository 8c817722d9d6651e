/**
 * `retry-after` in seconds or as an HTTP date, in milliseconds from `now` (0 when absent
 * or unreadable).
 */
export function retryAfterMs(header: string | null, now: number): number {
  if (header === null) return 0;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isFinite(date) ? Math.max(0, date - now) : 0;
}

/**
 * The wait before retry number `retry` (1, 2, ...): the base doubles with each, `baseMs`
 * for the first. Full jitter in [base/2, base); after a wait the service asked for
 * (`toldMs`, from `retry-after` or the service's own rule), never sooner than that and
 * spread over the half-base that follows, so that many devices do not come back at once.
 */
export function retryDelayMs(retry: number, baseMs: number, toldMs: number, random: () => number): number {
  const base = baseMs * 2 ** (retry - 1);
  return toldMs > 0 ? toldMs + (random() * base) / 2 : base / 2 + (random() * base) / 2;
}
