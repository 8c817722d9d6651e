/**
 * Pydantic-style messages that the schemas set explicitly, with the error `type` each one
 * stands for.
 *
 * Most field errors are derived from the valibot issue type alone (see `field-errors.ts`).
 * A few cannot be: a `number` issue on an integer field must say `int_type`, a custom
 * check must say which rule it enforces. Those schemas carry one of these messages, and
 * `toFieldErrors` looks the message up here to recover the type.
 */

const typeOfMessage = new Map<string, string>();

/** Registers `msg` as the message of pydantic error `type` and returns it. */
export function pydantic(type: string, msg: string): string {
  const known = typeOfMessage.get(msg);
  if (known !== undefined && known !== type) {
    throw new Error(`message registered twice with different types: ${msg}`);
  }
  typeOfMessage.set(msg, type);
  return msg;
}

/** The pydantic type of a message set by `pydantic()`, if it is one. */
export function registeredType(msg: string): string | undefined {
  return typeOfMessage.get(msg);
}

/** `'a', 'b' or 'c'`, the way pydantic lists expected values. */
export function quoteList(values: readonly unknown[]): string {
  const quoted = values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** A custom rule's message: `Value error, <reason>` (the reason never quotes the input). */
export function valueError(reason: string): string {
  return pydantic('value_error', `Value error, ${reason}`);
}

/** The message of a tag or template name that is not one of `values`. */
export function literalMessage(values: readonly string[]): string {
  return pydantic('literal_error', `Input should be ${quoteList(values)}`);
}

export const MSG = {
  int: pydantic('int_type', 'Input should be a valid integer'),
  dict: pydantic('dict_type', 'Input should be a valid dictionary'),
  extra: pydantic('extra_forbidden', 'Extra inputs are not permitted'),
  datetime: pydantic('datetime_parsing', 'Input should be a valid datetime'),
  timezone: pydantic('timezone_aware', 'Input should have timezone info'),
  httpsScheme: pydantic('url_scheme', "URL scheme should be 'https'"),
  // `icon` is string | Icon | null: a value of none of these shapes gets one error, not three.
  icon: pydantic('icon_type', 'Input should be a valid string, a valid Icon object or null'),
} as const;
