import type { AccountStore, ActivityStore, DeviceStore, SeedStore, WidgetStore } from '@tilecast/core/storage';
import type { MemoryState } from './state.js';
import { findWidget } from './widgets.js';

/** The parts whose upserts create the records. */
type Creators = AccountStore & ActivityStore & WidgetStore & DeviceStore;

/**
 * Seed creation (docs/contract/deployment.md#env-seed): an existing record is never touched. Atomic
 * within the process: the upserts called here do all their work synchronously (no
 * `await` inside them), so nothing runs between the check and the write.
 */
export function createIfAbsentMethod(state: MemoryState, creators: Creators): SeedStore {
  return {
    async createIfAbsent(record) {
      switch (record.kind) {
        case 'account':
          if (state.accounts.has(record.account.id)) return false;
          await creators.upsertAccount(record.account);
          return true;
        case 'activity': {
          const { accountId, slug } = record.definition;
          if (state.activities.get(accountId)?.has(slug)) return false;
          await creators.putActivity(record.definition);
          return true;
        }
        case 'widget': {
          const { accountId, slug } = record.definition;
          if (findWidget(state, accountId, slug) !== undefined) return false;
          await creators.putWidget(record.definition);
          return true;
        }
        case 'device':
          if (state.devices.has(record.device.id)) return false;
          await creators.upsertDevice(record.device);
          return true;
      }
    },
  };
}
