import { InvalidArgumentError, isStorageUnavailable, OwnDeviceShareError, UnknownRecordError } from '@tilecast/core';
import { isConnectionFailure } from '@tilecast/storage-postgres';

/** The exit codes of `tilecast` (documented in its README and `--help`). */
export const EXIT = {
  ok: 0,
  /** The operation failed: no such record, it already exists, the database refused it. */
  failed: 1,
  /** A usage or configuration error: unknown command or option, invalid argument, DATABASE_URL missing or invalid, schema not migrated. */
  usage: 2,
  /** PostgreSQL could not be reached or did not answer in time: trying again later may work. */
  unavailable: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as it is: one line, and its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string): CliError => new CliError(message, EXIT.usage);
export const failure = (message: string): CliError => new CliError(message, EXIT.failed);

/** SQLSTATE classes of a connection PostgreSQL refused for its settings: bad credentials (28), no such database (3D). */
const REFUSED_SETTINGS = /^(28|3D)/;

/** The one line and the exit code an error ends the command with. */
export function reportOf(error: unknown, where: string): { message: string; exitCode: ExitCode } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  // The management API's errors: a record it was told about is missing or refuses the change
  // (a share with a device of the widget's own account) (1), or the input is invalid (2).
  if (error instanceof UnknownRecordError || error instanceof OwnDeviceShareError) return { message: error.message, exitCode: EXIT.failed };
  if (error instanceof InvalidArgumentError) return { message: invalidArgumentLine(error), exitCode: EXIT.usage };
  const message = error instanceof Error ? error.message : String(error);
  if (isStorageUnavailable(error) || isConnectionFailure(error)) {
    return { message: `PostgreSQL at ${where} is unavailable: ${message.replace(/^PostgreSQL unavailable: /, '')}`, exitCode: EXIT.unavailable };
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && REFUSED_SETTINGS.test(code))
    return { message: `PostgreSQL at ${where} refused the connection: ${message}`, exitCode: EXIT.usage };
  return { message, exitCode: EXIT.failed };
}

/** Management input fields that the CLI takes as options, by the option's name. */
const OPTION_OF: Readonly<Record<string, string>> = {
  accountId: '--account',
  limit: '--limit',
  activityQuota: '--quota',
  dismissalDelayS: '--dismissal-delay',
  delivery: '--delivery',
  frequentUpdates: '--frequent-updates',
  staleAfter: '--stale-after',
  template: '--template',
  privacy: '--privacy',
};

/**
 * An invalid argument in the CLI's words: the value the user gave and what it must be, not
 * the management function that refused it (`createAccountIfAbsent: id: ...` means nothing to
 * someone who typed `tilecast accounts create`).
 */
function invalidArgumentLine(error: InvalidArgumentError): string {
  if (error.problems.length === 0) return error.message.replace(/^[A-Za-z]+: /, '');
  return error.problems
    .map(({ path, message, received }) => {
      const what = path === null ? 'value' : (OPTION_OF[path] ?? path);
      const value = typeof received === 'string' || typeof received === 'number' ? ` ${JSON.stringify(received)}` : '';
      return `invalid ${what}${value}: ${message}`;
    })
    .join('; ');
}
