import type { DeviceIdentity, DeviceRecord, FcmStore } from '@tilecast/core/storage';
import type { MemoryState } from './state.js';

/** The device's FCM token goes (device removed, its token or account changed). */
export function forgetFcmOf(state: MemoryState, deviceId: string): void {
  state.fcmTokens.delete(deviceId);
}

/** The device exists and, when `expected` is given, still has that account and token hash. */
function isStill(device: DeviceRecord | undefined, expected: DeviceIdentity | undefined): device is DeviceRecord {
  return device !== undefined && (expected === undefined || (device.accountId === expected.accountId && device.tokenHash === expected.tokenHash));
}

/** Each method reads and writes without an `await` in between: atomic within the process. */
export function fcmMethods(state: MemoryState): FcmStore {
  return {
    async setFcmToken(deviceId, token, condition) {
      if (!isStill(state.devices.get(deviceId), condition?.ifDevice)) return false;
      state.fcmTokens.set(deviceId, token);
      return true;
    },

    async getFcmToken(deviceId) {
      return state.fcmTokens.get(deviceId) ?? null;
    },

    async getFcmTokens(deviceIds) {
      const found = new Map<string, string>();
      for (const deviceId of deviceIds) {
        const token = state.fcmTokens.get(deviceId);
        if (token !== undefined) found.set(deviceId, token);
      }
      return found;
    },

    async removeFcmToken(deviceId, condition) {
      if (condition?.ifDevice !== undefined && !isStill(state.devices.get(deviceId), condition.ifDevice)) return false;
      if (condition?.ifToken !== undefined && state.fcmTokens.get(deviceId) !== condition.ifToken) return false;
      forgetFcmOf(state, deviceId);
      return true;
    },
  };
}
