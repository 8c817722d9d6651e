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
