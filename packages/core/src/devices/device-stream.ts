import type { TilecastContext } from '../context.js';
import type { CoreResult } from '../http/types.js';
import type { ActivityRecord, DeviceRecord, WidgetRecord } from '../storage/records.js';
import { sseEvent, sseRetry } from '../sse/format.js';
import { openSseConnection } from '../sse/connection.js';
import { activityPush, widgetPush } from '../transport/pushes.js';

/**
 * `GET /device/stream`: what is pushed to this device, as server-sent events. It opens
 * with `retry: 1000` and a snapshot of everything the device shows (widgets with content,
 * live activities), then follows pushes. Pushes that arrive while the snapshot is being
 * read are queued behind it, so the device always ends on the latest content. It ends when
 * the device is removed or its token changes (`credentialWatch`), or, with a last `retry:`,
 * when the instance drains (`sseConnections`).
 */
export function openDeviceStream(context: TilecastContext, device: DeviceRecord): CoreResult {
  return {
    kind: 'sse',
    run: async (sink) => {
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
