import { describe, it } from 'vitest';
import { type StorageConformanceOptions, useHandles } from './harness.js';
import { type StorageConcern, storageConcerns } from './registry.js';

export type { GetHandles, Handles, StorageConformanceOptions } from './harness.js';
export { type StorageConcern, storageConcerns } from './registry.js';

/**
 * Declares the shared `Storage` conformance suite (vitest `describe`/`it`): one `describe`
 * per concern, each on its own store from `options.create()`. Tests use random ids and
 * explicit times, so they need no cleanup and may share one database.
 *
 * A concern listed in `options.skip` is reported as a skipped test whose title carries the
 * written reason; an unknown concern id or an empty reason is an error.
 */
export function runStorageConformance(options: StorageConformanceOptions): void {
  const skip = options.skip ?? {};
  for (const [concern, reason] of Object.entries(skip)) {
    if (!(concern in storageConcerns)) {
      throw new Error(`runStorageConformance: unknown concern "${concern}" in skip (known: ${Object.keys(storageConcerns).join(', ')})`);
    }
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`runStorageConformance: skipping "${concern}" needs a written reason`);
    }
  }

  describe(`Storage conformance: ${options.name}`, () => {
    for (const concern of Object.keys(storageConcerns) as StorageConcern[]) {
      const { title, define } = storageConcerns[concern];
      describe(title, () => {
        const reason = skip[concern];
        if (reason !== undefined) {
          it.skip(`${concern} skipped: ${reason}`, () => {});
          return;
        }
        define(useHandles(options));
      });
    }
  });
}
