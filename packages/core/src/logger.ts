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
