/**
 * `@tilecast/core/storage`: what a store author needs. The `Storage` contract (read the
 * rules header of `storage.ts`), the records it keeps, and the helpers every store shares
 * so that both stores answer alike.
 */
export type * from './storage.js';
export type * from './records.js';
export {
  WIDGET_PUSH_WINDOW_MS,
  DEAD_LETTER_TTL_MS,
  supersedingJob,
  claimed,
  isClaimable,
  phaseFor,
  type DeliveryPhase,
  type DeliveryKind,
  type DeliveryResource,
  type DeliveryJob,
  type DeliveryJobRef,
  type DeliveryClaimTerms,
  type WriteClaimTerms,
  type DeadLetter,
  type DeadLetterQuery,
  type DeliveryJobQuery,
  type DeliveryJobStats,
} from './delivery-jobs.js';
export type { PressTarget } from './press-target.js';
export { writeRefusal } from './write-guard.js';
export { isHoldable } from './holdable.js';
export { guardUnholdable } from './unholdable-guard.js';
export { tokenTakes, type TokenTake } from './token-takes.js';
export { actionKindIn } from './press-target.js';
export { StorageUnavailableError, isStorageUnavailable } from '../errors.js';
export { isoTime } from '../iso-time.js';
export { activityUpdateTime } from './activity-time.js';
