import { runStorageConformance, storageConcerns } from '@tilecast/storage-conformance';
import { describe, expect, it } from 'vitest';

const neverBuilt = () => {
  throw new Error('a skipped concern must not build a store');
};

describe('runStorageConformance options', () => {
  it('refuses an unknown concern in skip (a typo must not silently run or skip anything)', () => {
    // @ts-expect-error: `skip` is keyed by concern, so a typo is a type error too.
    expect(() => runStorageConformance({ name: 'x', create: neverBuilt, skip: { acounts: 'typo' } })).toThrow('unknown concern "acounts"');
  });

  it('refuses a skip without a written reason', () => {
    expect(() => runStorageConformance({ name: 'x', create: neverBuilt, skip: { accounts: '  ' } })).toThrow('needs a written reason');
  });

  it('has one concern per area of the Storage contract', () => {
    expect(Object.keys(storageConcerns)).toEqual([
      'accounts',
      'activities',
      'activityQuota',
      'widgets',
      'writeGuards',
      'devices',
      'credentialChecks',
      'listings',
      'events',
      'eventStreamSlots',
      'tokenBuckets',
      'pressTargets',
      'pressDedup',
      'pressNotes',
      'deliveryJobs',
      'deadLetters',
      'webhooks',
      'purge',
      'copies',
      'unholdableValues',
      'seedCreatesOnly',
      'apnsRegistrations',
      'deviceStreamSlots',
      'shareEdges',
      'fcmTokens',
      'broadcastChannels',
      'writtenAudiences',
    ]);
  });
});
