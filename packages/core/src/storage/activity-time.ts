/**
 * The time (epoch ms) an accepted activity update is stored with: `now`, or one millisecond
 * after the activity's last update when `now` is not later (two updates in one millisecond,
 * or an instance whose clock is behind another's). Every update of an activity thus has a
 * time of its own, later than the one before (docs/contract/apns.md#apns-timestamp): a push
 * transport tells the newer of two pushes by it, and never sends the older after the newer
 * (docs/contract/apns.md#apns-latest-wins).
 */
export function activityUpdateTime(previousUpdatedAt: string | null, now: number): number {
  const previous = previousUpdatedAt === null ? Number.NaN : Date.parse(previousUpdatedAt);
  return Number.isFinite(previous) && previous >= now ? previous + 1 : now;
}
