import type { TilecastContext } from '../context.js';
import type { CoreRequest, CoreResult } from '../http/types.js';
import type { ActivityRecord, DeviceRecord, WidgetRecord } from '../storage/records.js';
import { sseEvent, sseRetry } from '../sse/format.js';
import { openSseConnection } from '../sse/connection.js';
import { claimStreamSlot, releaseStreamSlot } from '../sse/slot-claim.js';
import type { HeldSlot, StreamSlotKind } from '../sse/stream-slots.js';
import { activityPush, widgetPush } from '../transport/pushes.js';

/** Concurrent `GET /device/stream` streams per device (docs/contract/device-api.md#device-stream-cap). */
export const MAX_DEVICE_STREAMS = 4;

/** The slots of `GET /device/stream`: per device, across instances, like those of `GET /events`. */
export const DEVICE_STREAM_SLOTS: StreamSlotKind = {
  max: MAX_DEVICE_STREAMS,
  refusal: { kind: 'too_many_device_streams' },
  acquire: (storage, deviceId, slotId, terms) => storage.acquireDeviceStreamSlot(deviceId, slotId, terms),
  renew: (storage, deviceId, slotId, terms) => storage.renewDeviceStreamSlot(deviceId, slotId, terms),
  release: (storage, deviceId, slotId) => storage.releaseDeviceStreamSlot(deviceId, slotId),
};

/**
 * `GET /device/stream` after authentication: a slot of the device (`429` beyond
 * `MAX_DEVICE_STREAMS`: each stream gets every push, so streams cost the instance per push),
 * then what is pushed to this device, as server-sent events. It opens
 * with `retry: 1000` and a snapshot of everything the device shows (widgets with content,
 * live activities), then follows pushes. Pushes that arrive while the snapshot is being
 * read are queued behind it, so the device always ends on the latest content. It ends when
 * the device is removed or its token changes (`credentialWatch`), its slot is lost, or, with
 * a last `retry:`, when the instance drains (`sseConnections`); its end releases the slot.
 * A store outage while taking the slot rejects with the store's `StorageUnavailableError`
 * (the handler answers the outage stream, as for `GET /events`).
 */
export async function openDeviceStream(context: TilecastContext, device: DeviceRecord, request: CoreRequest): Promise<CoreResult> {
  const claim = await claimStreamSlot(context, DEVICE_STREAM_SLOTS, device.id, request);
  return {
    kind: 'sse',
    run: async (sink) => {
      if (!claim.start()) {
        sink.end();
        return;
      }
      const connection = openSseConnection(sink, context.clock, context.sse);
      context.sseConnections.track(connection, 'device');
      const queue: string[] = [];
      const detach = context.sseDeviceTransport.attach(device.id, {
        deliver: (text) => {
          queue.push(text);
          connection.wake();
        },
      });
      const credential = { deviceId: device.id, tokenHash: device.tokenHash, credentialRevoked: () => connection.end() };
      context.credentialWatch.watchDevice(credential);
      const slot: HeldSlot = { slotKind: DEVICE_STREAM_SLOTS, slotOwnerId: device.id, slotId: claim.slotId, slotLost: () => connection.end() };
      context.streamSlots.keep(slot);
      try {
        await connection.send(`${sseRetry()}\n`);
        for (const text of await snapshot(context, device)) await connection.send(text);
        while (!connection.ended) {
          while (queue.length > 0 && !connection.ended) await connection.send(queue.shift()!);
          await connection.nextWake();
        }
      } catch (error) {
        context.logger.warn('device stream ended by an error', { error: String(error) });
      } finally {
        context.streamSlots.drop(slot);
        releaseStreamSlot(context, DEVICE_STREAM_SLOTS, device.id, claim.slotId);
        context.credentialWatch.unwatch(credential);
        context.sseConnections.untrack(connection);
        detach();
        connection.end();
      }
    },
  };
}

async function snapshot(context: TilecastContext, device: DeviceRecord): Promise<string[]> {
  const { storage } = context;
  const [own, shared, activities] = await Promise.all([
    storage.listWidgets(device.accountId),
    storage.listWidgetsSharedWith(device.id),
    storage.listActivities(device.accountId),
  ]);
  const widgets = [...own, ...shared].filter((widget: WidgetRecord) => widget.updatedAt !== null);
  const live = activities.filter((activity: ActivityRecord) => activity.live);
  return [
    ...widgets.map((widget) => sseEvent({ event: 'widget', data: widgetPush(widget) })),
    ...live.map((activity) => sseEvent({ event: 'activity', data: activityPush(activity, 'start') })),
  ];
}
