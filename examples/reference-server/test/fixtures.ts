import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A seed file's content for the reference server's tests: `acme` (a phone, the activity
 * `build`, the widget `lights` shared with the guest's phone) and `guest` with its phone.
 */
export const TWO_ACCOUNT_SEED = {
  accounts: [
    {
      id: 'acme',
      token: 'tok_acme_1',
      subscription: 'active',
      activity_quota: 2,
      devices: [{ id: 'acme-phone', token: 'dev_acme_phone' }],
      activities: [{ slug: 'build', template: 'progress', dismissal_delay_s: 0 }],
      widgets: [{ slug: 'lights', template: 'switchboard', stale_after: null, privacy: 'visible', shared_with: ['guest-phone'] }],
    },
    { id: 'guest', token: 'tok_guest_1', devices: [{ id: 'guest-phone', token: 'dev_guest_phone' }] },
  ],
};

/**
 * Writes a seed file into `dir` with one account, `acme` (`tok_acme_1`), these phones and the
 * switchboard widget `lights` (not shared), and returns its path.
 */
export async function writeLightsSeed(dir: string, phones: ReadonlyArray<{ id: string; token: string }>): Promise<string> {
  const seed = join(dir, 'seed.json');
  const devices = phones.map(({ id, token }) => ({ id, token }));
  const widgets = [{ slug: 'lights', template: 'switchboard', stale_after: null, privacy: 'visible' }];
  await writeFile(seed, JSON.stringify({ accounts: [{ id: 'acme', token: 'tok_acme_1', devices, widgets }] }));
  return seed;
}
