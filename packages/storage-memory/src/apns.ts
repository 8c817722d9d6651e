import type { ActivityPushTarget, ApnsRegistration, ApnsStore, DeviceIdentity, DeviceRecord } from '@tilecast/core/storage';
import { channelMethods, setFollower } from './channels.js';
import { pairKey, type MemoryState } from './state.js';

/** Every APNs token of the device goes (device removed, its token or account changed, `DELETE /device/push`). */
export function forgetApnsOf(state: MemoryState, deviceId: string): void {
  state.apns.delete(deviceId);
  state.activityPushTokens.delete(deviceId);
  setFollower(state, deviceId, null);
}

/** An activity removed: its update tokens on its account's devices go with it. */
export function forgetActivityPushTokens(state: MemoryState, accountId: string, slug: string): void {
  const key = pairKey(accountId, slug);
  for (const deviceId of state.devicesByAccount.get(accountId) ?? []) {
    const tokens = state.activityPushTokens.get(deviceId);
    tokens?.delete(key);
    if (tokens?.size === 0) state.activityPushTokens.delete(deviceId);
  }
}

/** The device exists and, when `expected` is given, still has that account and token hash. */
function isStill(device: DeviceRecord | undefined, expected: DeviceIdentity | undefined): device is DeviceRecord {
  return device !== undefined && (expected === undefined || (device.accountId === expected.accountId && device.tokenHash === expected.tokenHash));
}

export function apnsMethods(state: MemoryState): ApnsStore {
  return {
    async setApnsRegistration(deviceId, { environment, pushToStart, widgets, channels }, condition) {
      const device = state.devices.get(deviceId);
      if (!isStill(device, condition?.ifDevice)) return false;
      const previous = state.apns.get(deviceId);
      const registration = {
        environment,
        pushToStart: pushToStart === undefined ? (previous?.pushToStart ?? null) : pushToStart,
        widgets: widgets === undefined ? (previous?.widgets ?? null) : widgets,
        // Left out: the stored flag stays (docs/contract/broadcast-channels.md#broadcast-device-flag).
        channels: channels ?? previous?.channels ?? false,
      };
      state.apns.set(deviceId, registration);
      setFollower(state, deviceId, registration.channels ? { accountId: device.accountId, environment } : null);
      return true;
    },

    async getApnsRegistration(deviceId) {
      const found = state.apns.get(deviceId);
      return found === undefined ? null : { ...found };
    },

    async getApnsRegistrations(deviceIds) {
      const found = new Map<string, ApnsRegistration>();
      for (const deviceId of deviceIds) {
        const registration = state.apns.get(deviceId);
        if (registration !== undefined) found.set(deviceId, { ...registration });
      }
      return found;
    },

    async getActivityPushTargets(accountId, slug, deviceIds) {
      const key = pairKey(accountId, slug);
      const found = new Map<string, ActivityPushTarget>();
      for (const deviceId of deviceIds) {
        const registration = state.apns.get(deviceId);
        if (registration === undefined) continue;
        found.set(deviceId, { registration: { ...registration }, token: state.activityPushTokens.get(deviceId)?.get(key) ?? null });
      }
      return found;
    },

    async removeApnsRegistration(deviceId, condition) {
      if (condition?.ifDevice !== undefined && !isStill(state.devices.get(deviceId), condition.ifDevice)) return false;
      forgetApnsOf(state, deviceId);
      return true;
    },

    async setActivityPushToken(deviceId, accountId, slug, token, condition) {
      const device = state.devices.get(deviceId);
      if (!isStill(device, condition?.ifDevice) || device.accountId !== accountId || !state.activities.get(accountId)?.has(slug)) return false;
      let tokens = state.activityPushTokens.get(deviceId);
      if (tokens === undefined) state.activityPushTokens.set(deviceId, (tokens = new Map()));
      tokens.set(pairKey(accountId, slug), token);
      return true;
    },

    async getActivityPushToken(deviceId, accountId, slug) {
      return state.activityPushTokens.get(deviceId)?.get(pairKey(accountId, slug)) ?? null;
    },

    async forgetActivityPushToken(deviceId, accountId, slug, condition) {
      const tokens = state.activityPushTokens.get(deviceId);
      const key = pairKey(accountId, slug);
      const held = tokens?.get(key);
      if (held === undefined || (condition?.ifToken !== undefined && condition.ifToken !== held)) return;
      tokens!.delete(key);
      if (tokens!.size === 0) state.activityPushTokens.delete(deviceId);
    },

    async removeApnsToken(deviceId, token) {
      const registration = state.apns.get(deviceId);
      if (registration?.pushToStart === token) registration.pushToStart = null;
      if (registration?.widgets === token) registration.widgets = null;
      const tokens = state.activityPushTokens.get(deviceId);
      for (const [key, value] of tokens ?? []) if (value === token) tokens!.delete(key);
      if (tokens?.size === 0) state.activityPushTokens.delete(deviceId);
    },

    ...channelMethods(state),
  };
}
