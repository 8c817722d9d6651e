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

/**
 * The store's own defence (`Storage` rules): a write that would create or name a record by
 * a key no store can hold is refused, with this error, on every store alike.
 */
export function refuseUnholdable(what: string, ...values: string[]): void {
  for (const value of values) {
    if (!isHoldable(value)) throw new TypeError(`storage: ${what} holds a NUL or a lone surrogate, which no store can hold`);
  }
}

/** `refuseUnholdable` for every string (keys included) in a JSON value, e.g. a webhook map. */
export function refuseUnholdableJson(what: string, value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') refuseUnholdable(what, item);
    else if (Array.isArray(item)) stack.push(...item);
    else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        refuseUnholdable(what, key);
        stack.push(inner);
      }
    }
  }
}
