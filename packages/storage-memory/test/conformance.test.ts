import { expect, it } from 'vitest';
import { runStorageConformance } from '@tilecast/storage-conformance';
import { createMemoryStorage } from '@tilecast/storage-memory';

// One process, one store: the peer handle is the store itself (the default).
runStorageConformance({ name: 'memory', create: () => createMemoryStorage() });

// `countEvents` is optional in the contract (the suite checks it where present): this store has it.
it('has the optional countEvents (the event-log size of metrics)', () => {
  expect(typeof createMemoryStorage().countEvents).toBe('function');
});
