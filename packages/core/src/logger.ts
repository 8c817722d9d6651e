/** Where the service reports what an operator should know. Never receives secrets or tokens. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const consoleLogger: Logger = {
  info: (message, fields) => console.info(`[tilecast] ${message}`, fields ?? ''),
  warn: (message, fields) => console.warn(`[tilecast] ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`[tilecast] ${message}`, fields ?? ''),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** An error and its cause, for the log (a store's unavailable error wraps the driver's). */
export function describeError(error: unknown): string {
  const text = String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? text : `${text} (${String(cause)})`;
}
