import { DEVICE_UNAUTHORIZED, fail } from '../errors.js';
import type { CoreRequest } from '../http/types.js';
import type { Storage } from '../storage/storage.js';
import type { DeviceRecord } from '../storage/records.js';
import { readCredentials } from './authorization-header.js';
import { memoizedTokenHasher } from './tokens.js';

/** Finds the device a request comes from (the device API); null when it cannot. */
export type DeviceAuthenticator = (request: CoreRequest) => Promise<DeviceRecord | null>;

const noDevice = Promise.resolve(null);

/** The reference deployment's device authentication: `Authorization: Device <device token>`. */
export function deviceTokenAuthenticator(storage: Storage): DeviceAuthenticator {
  const hash = memoizedTokenHasher();
  return (request) => {
    const token = readCredentials(request.headers.authorization, 'Device');
    return token === null ? noDevice : storage.findDeviceByTokenHash(hash(token));
  };
}

/** The device API's authentication: `401 Could not validate credentials` when no device is found. */
export function authenticateDevice(authenticate: DeviceAuthenticator, request: CoreRequest): Promise<DeviceRecord> {
  // `Promise.resolve` hands a promise back as it is, and also takes a plain value from an
  // embedder's authenticator (as `await` would).
  return Promise.resolve(authenticate(request)).then(foundOrUnauthorized);
}

function foundOrUnauthorized(device: DeviceRecord | null): DeviceRecord {
  if (device === null) fail(DEVICE_UNAUTHORIZED);
  return device;
}
