import { runStorageConformance } from '@tilecast/storage-conformance';
import { createMemoryStorage } from '@tilecast/storage-memory';

// One process, one store: the peer handle is the store itself (the default).
runStorageConformance({ name: 'memory', create: () => createMemoryStorage() });
