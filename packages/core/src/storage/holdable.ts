/**
 * Whether every store can keep `value` exactly: no NUL (PostgreSQL text cannot hold one)
 * and well-formed UTF-16 (a lone surrogate has no UTF-8 form; PostgreSQL would get U+FFFD
 * instead, another string). Requests never hand such a value to a store
 * (docs/contract/limits-and-errors.md#unholdable-values): body strings are refused with `422 string_unicode`, path
 * parameters name nothing, credentials are visible ASCII.
 */
export function isHoldable(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}
