/** An instant as the service and every store format it (`updatedAt`, `occurred_at`). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
