import { describe, expect, it } from 'vitest';
import { sendPaced } from '../../src/delivery/paced-send.js';
import { StorageUnavailableError } from '../../src/errors.js';

/** A logger that keeps its warnings. */
function keepingLogger() {
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  const logger = { info() {}, warn: (message: string, fields?: Record<string, unknown>) => void warnings.push([message, fields]), error() {} };
  return { logger, warnings };
}

describe('sendPaced', () => {
  it('logs a push that fails with its device and why, whether it rejects or throws, and still settles the rest', async () => {
    const { logger, warnings } = keepingLogger();
    const sent: string[] = [];
    const send = (deviceId: string): Promise<unknown> => {
      sent.push(deviceId);
      if (deviceId === 'b') return Promise.reject(new StorageUnavailableError('PostgreSQL unavailable', { cause: new Error('connection refused') }));
      if (deviceId === 'c') throw new Error('a bug');
      return Promise.resolve('delivered');
    };
    await sendPaced(['a', 'b', 'c', 'd'], send, logger);
    expect(sent).toEqual(['a', 'b', 'c', 'd']);
    expect(warnings).toEqual([
      ['push to a device failed', { deviceId: 'c', error: 'Error: a bug' }],
      ['push to a device failed', { deviceId: 'b', error: 'StorageUnavailableError: PostgreSQL unavailable (Error: connection refused)' }],
    ]);
  });
});
