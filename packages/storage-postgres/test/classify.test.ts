/** Which driver and server failures the store reports as an outage (`StorageUnavailableError`, a 503). */
import { type StorageUnavailableError, isStorageUnavailable } from '@tilecast/core/storage';
import { isConnectionFailure } from '@tilecast/storage-postgres';
import { describe, expect, it } from 'vitest';
import { classify, classifyConnectFailure } from '../src/deadlines.js';

const failure = (code: string | undefined, message = 'x') => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('isConnectionFailure', () => {
  it('network errors, connection SQLSTATEs, shutdowns, too many connections and deadlines are outages', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'EHOSTUNREACH',
      'ENOTFOUND',
      '08000',
      '08003',
      '08006',
      '08P01',
      '57P01',
      '57P02',
      '57P03',
      '53300',
    ]) {
      expect({ code, outage: isConnectionFailure(failure(code)) }).toEqual({ code, outage: true });
    }
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Query read timeout',
      'Client has encountered a connection error and is not queryable',
    ]) {
      expect({ message, outage: isConnectionFailure(failure(undefined, message)) }).toEqual({ message, outage: true });
    }
    expect(isConnectionFailure(failure('57014', 'canceling statement due to statement timeout'))).toBe(true);
  });

  it('anything else is not: a bug or a misconfiguration must stay a 500', () => {
    expect(isConnectionFailure(failure('57014', 'canceling statement due to user request'))).toBe(false);
    for (const code of ['23505', '40P01', '42P01', '28P01', '3D000', '22021', 'ERR_INVALID_ARG_TYPE']) {
      expect({ code, outage: isConnectionFailure(failure(code)) }).toEqual({ code, outage: false });
    }
    expect(isConnectionFailure(new Error('Cannot use a pool after calling end on the pool'))).toBe(false);
    expect(isConnectionFailure(new TypeError('x is undefined'))).toBe(false);
    expect(isConnectionFailure('ECONNREFUSED')).toBe(false);
    expect(isConnectionFailure(null)).toBe(false);
  });
});

describe('classify', () => {
  it('marks a missed deadline (deadline: true), apart from a lost or refused connection', () => {
    const deadline = (error: Error) => (classify(error) as StorageUnavailableError).deadline;
    expect(deadline(failure('57014', 'canceling statement due to statement timeout'))).toBe(true);
    expect(deadline(failure(undefined, 'timeout exceeded when trying to connect'))).toBe(true);
    expect(deadline(failure(undefined, 'Connection terminated due to connection timeout'))).toBe(true);
    expect(deadline(failure('ETIMEDOUT'))).toBe(true);
    expect(deadline(failure('ECONNREFUSED'))).toBe(false);
    expect(deadline(failure(undefined, 'Connection terminated unexpectedly'))).toBe(false);
    expect(deadline(failure('57P01'))).toBe(false);
  });

  it('a new connection refused with 55000 (ALLOW_CONNECTIONS false) is an outage; 55000 in a statement, 3D000 and 28P01 are not', () => {
    const refused = failure('55000', 'database "app" is not currently accepting connections');
    const classified = classifyConnectFailure(refused) as StorageUnavailableError;
    expect(isStorageUnavailable(classified)).toBe(true);
    expect(classified.cause).toBe(refused);
    expect(classified.deadline).toBe(false);
    expect(classify(refused)).toBe(refused);
    for (const code of ['3D000', '28P01']) expect(classifyConnectFailure(failure(code))).toEqual(failure(code));
    expect(isStorageUnavailable(classifyConnectFailure(failure('ECONNREFUSED')))).toBe(true);
  });
});
