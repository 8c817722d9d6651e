import type { DeviceStore } from '@tilecast/core/storage';
import { forgetApnsOf } from './apns.js';
import { forgetFcmOf } from './fcm.js';
import { SortedIds } from './sorted-ids.js';
import { copy, parsePairKey, type MemoryState } from './state.js';

function unlinkFromAccount(state: MemoryState, accountId: string, deviceId: string): void {
  const ids = state.devicesByAccount.get(accountId);
  ids?.delete(deviceId);
  if (ids?.size === 0) state.devicesByAccount.delete(accountId);
}

/** Removes every share naming the device. */
function unshareAll(state: MemoryState, deviceId: string): void {
  for (const key of state.sharesByDevice.get(deviceId) ?? []) {
    const [accountId, slug] = parsePairKey(key);
    state.widgets.get(accountId)?.get(slug)?.shares.delete(deviceId);
  }
  state.sharesByDevice.delete(deviceId);
}

/** Removes a device, its token index entry, every share naming it, its APNs and FCM tokens and stream slots. */
export function removeDevice(state: MemoryState, deviceId: string): boolean {
  const device = state.devices.get(deviceId);
  if (!device) return false;
  state.devices.delete(deviceId);
  state.deviceByToken.delete(device.tokenHash);
  unlinkFromAccount(state, device.accountId, deviceId);
  unshareAll(state, deviceId);
  forgetApnsOf(state, deviceId);
  forgetFcmOf(state, deviceId);
  state.deviceStreamSlots.delete(deviceId);
  return true;
}

export function deviceMethods(state: MemoryState): DeviceStore {
  /** A copy of the account's ids in code-unit order (kept in order between listings: `SortedIds`). */
  const sortedIds = (accountId: string): string[] => [...(state.devicesByAccount.get(accountId)?.sorted() ?? [])];
  return {
    async upsertDevice(device) {
      const holder = state.deviceByToken.get(device.tokenHash);
      if (holder !== undefined && holder.id !== device.id) {
        throw new Error('this token hash already belongs to another device');
      }
      const previous = state.devices.get(device.id);
      if (previous) {
        // A rotated token or a moved device loses its APNs registrations (docs/contract/device-api.md#device-registrations-follow-token),
        // its FCM token (docs/contract/device-api.md#device-fcm-follows-token) and its stream slots
        // (docs/contract/device-api.md#device-stream-slot-release); a moved device also loses the shares made for its old account.
        if (previous.tokenHash !== device.tokenHash || previous.accountId !== device.accountId) {
          forgetApnsOf(state, device.id);
          forgetFcmOf(state, device.id);
          state.deviceStreamSlots.delete(device.id);
        }
        if (previous.accountId !== device.accountId) unshareAll(state, device.id);
        state.deviceByToken.delete(previous.tokenHash);
        unlinkFromAccount(state, previous.accountId, device.id);
      }
      const kept = copy(device);
      state.devices.set(device.id, kept);
      state.deviceByToken.set(device.tokenHash, kept);
      let ids = state.devicesByAccount.get(device.accountId);
      if (!ids) {
        ids = new SortedIds();
        state.devicesByAccount.set(device.accountId, ids);
      }
      ids.add(device.id);
    },

    async deleteDevice(deviceId) {
      return removeDevice(state, deviceId);
    },

    async getDevice(deviceId) {
      const device = state.devices.get(deviceId);
      return device ? { ...device } : null; // a flat record: a spread is a full copy
    },

    async findDeviceByTokenHash(tokenHash) {
      const device = state.deviceByToken.get(tokenHash);
      return device ? { ...device } : null; // a flat record: a spread is a full copy
    },

    async listAccountDevices(accountId) {
      return sortedIds(accountId).map((id) => ({ ...state.devices.get(id)! }));
    },

    async listAccountDeviceIds(accountId) {
      return sortedIds(accountId);
    },
  };
}
