import * as v from 'valibot';

/** One thing wrong with a management call's input: where (a dot path such as `accounts.0.id`, or null for the whole value), what, and the value found. */
export interface ArgumentProblem {
  path: string | null;
  message: string;
  received: unknown;
}

/**
 * A management call was given something it cannot accept (a programming or seed-file error).
 * The message names the call for a programmer (`createAccount: id: must be ...`); `problems`
 * says the same without it, for a tool that words the error for its own users (the CLI).
 */
export class InvalidArgumentError extends Error {
  constructor(
    message: string,
    readonly problems: readonly ArgumentProblem[] = [],
  ) {
    super(message);
    this.name = 'InvalidArgumentError';
  }
}

/** What a management call names and the store does not have. */
export type RecordKind = 'account' | 'activity' | 'widget' | 'device';

/**
 * A management call named a record that does not exist (no such account, widget or device).
 * An `InvalidArgumentError` too, so code that catches those keeps working; `record` and
 * `id` say which one was missing (`id` is `<account>/<slug>` for activities and widgets).
 */
export class UnknownRecordError extends InvalidArgumentError {
  constructor(
    readonly record: RecordKind,
    readonly id: string,
  ) {
    super(`no ${record} "${id}"`);
    this.name = 'UnknownRecordError';
  }
}

/**
 * `shareWidget` named a device of the widget's own account: the device shows the widget
 * already (a share would list and push it twice), so widgets are shared with devices of
 * other accounts only. An `InvalidArgumentError` too; nothing was shared.
 */
export class OwnDeviceShareError extends InvalidArgumentError {
  constructor(
    readonly accountId: string,
    readonly slug: string,
    readonly deviceId: string,
  ) {
    super(`device "${deviceId}" belongs to account "${accountId}": it shows widget "${accountId}/${slug}" already`);
    this.name = 'OwnDeviceShareError';
  }
}

/**
 * Account ids, device ids and slugs: URL-safe, so they travel in paths and
 * `<kind>/<slug>` subjects without escaping. The contract leaves the format open
 * (docs/contract/publisher-api.md#slug-format-open); this is ours.
 */
export const Identifier = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._~-]{0,63}$/, 'must be 1-64 characters of A-Z a-z 0-9 . _ ~ - starting with a letter or digit'),
);

/** Tokens given by the host (seed files): visible ASCII, long enough not to be guessed by accident. */
export const ProvidedToken = v.pipe(v.string(), v.regex(/^[\x21-\x7e]{8,256}$/, 'must be 8-256 visible ASCII characters'));

export function parseArgument<const S extends v.GenericSchema>(schema: S, input: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  // One line: each issue with the path of the value it is about (`accounts.0.id: must be ...`).
  const problems = result.issues.map((issue) => ({ path: v.getDotPath(issue), message: issue.message, received: issue.input }));
  const issues = problems.map(({ path, message }) => (path === null ? message : `${path}: ${message}`));
  throw new InvalidArgumentError(`${what}: ${issues.join('; ')}`, problems);
}
