import type { CoreRequest } from '../../src/adapter.js';
import type { Clock } from '../../src/clock.js';
import { createTilecast, type DeviceTransport, silentLogger, type Storage } from '../../src/index.js';

/** The instance id and lease of `tilecastWithJobs`: the claims its writes make are this instance's. */
export const INSTANCE_ID = 'here';
export const LEASE_MS = 30_000;

/** A Tilecast on `storage` and `clock` whose delivery jobs run only when its own writes claim them (no poller). */
export const tilecastWithJobs = (storage: Storage, clock: Clock, transport: DeviceTransport | undefined) =>
  createTilecast({
    storage,
    clock,
    logger: silentLogger,
    purgeIntervalMs: 0,
    transport,
    delivery: { instanceId: INSTANCE_ID, pollMs: 0, leaseMs: LEASE_MS },
  });

/** A publisher's `PATCH` of `path` with an already parsed body, as an adapter hands it to the core. */
export const patchRequest = (token: string, path: string, value: unknown): CoreRequest => ({
  method: 'PATCH',
  path,
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value },
});

/** `PATCH /widget/lights`: a switchboard with one action labelled `label`. */
export const widgetPatch = (token: string, label: string) =>
  patchRequest(token, '/widget/lights', { content: { template: 'switchboard', actions: [{ id: 'bell', label }] } });

/** `PATCH /activity/game`: the progress template, ongoing, at `value`. */
export const activityPatch = (token: string, value: number) =>
  patchRequest(token, '/activity/game', { state: 'ONGOING', content: { template: 'progress', progress: { value } } });
