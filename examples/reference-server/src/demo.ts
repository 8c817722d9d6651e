import type { Tilecast } from '@tilecast/core';

export interface DemoAccount {
  /** The demo account's API token, or null when the account already existed (tokens are stored hashed). */
  token: string | null;
  /** The demo phone's device token, or null when the device already existed. */
  deviceToken: string | null;
}

/** The demo deployment, as a seed: created once, then left as the app and the API change it. */
const DEMO_SEED = {
  accounts: [
    {
      id: 'demo',
      activity_quota: 2,
      devices: [{ id: 'demo-phone' }],
      activities: [{ slug: 'build', template: 'progress', dismissal_delay_s: 0 }],
      widgets: [
        { slug: 'lights', template: 'switchboard' },
        { slug: 'boiler', template: 'gauge', stale_after: 3600 },
      ],
    },
  ],
};

/**
 * The account `npm start` creates on the in-memory store (or with `TILECAST_DEMO=1`), so
 * the quick start works at once. Created only when missing: with PostgreSQL a restart keeps it and its tokens.
 * `rotate` issues new tokens for an existing demo account and phone (the old ones stop working).
 */
export async function createDemoAccount(tilecast: Tilecast, rotate = false): Promise<DemoAccount> {
  const seeded = await tilecast.loadSeed(DEMO_SEED);
  let token = seeded.accounts[0]!.token;
  let deviceToken = seeded.devices[0]!.token;
  if (rotate && token === null) token = await tilecast.management.rotateToken('demo');
  if (rotate && deviceToken === null) ({ token: deviceToken } = await tilecast.management.registerDevice({ id: 'demo-phone', account: 'demo' }));
  return { token, deviceToken };
}

/** The admin command's lines that issue new demo tokens (on PostgreSQL; `DATABASE_URL` as the server's). */
const ROTATE_WITH_CLI = [
  "  npx tilecast tokens rotate demo                  # the account's new token",
  "  npx tilecast devices remove demo-phone && npx tilecast devices register demo demo-phone   # the phone's",
];

/**
 * What the banner says about the demo account. `showTokens` (the output is a terminal):
 * its tokens and a curl line that starts the demo activity; otherwise never a token, and
 * how to get them.
 */
export function demoInstructions(baseUrl: string, demo: DemoAccount, showTokens: boolean): string {
  const openApi = `OpenAPI: ${baseUrl}/openapi.json`;
  if (demo.token === null) {
    return [
      'Demo account "demo" already exists, with the tokens printed when it was created',
      '(tokens are stored hashed, so they cannot be shown again). To issue new ones (the old ones',
      'stop working), with the same DATABASE_URL:',
      ...ROTATE_WITH_CLI,
      'or start once with TILECAST_DEMO_ROTATE=1 (new tokens are printed on a terminal only).',
      openApi,
    ].join('\n');
  }
  if (!showTokens) {
    return [
      'Demo account "demo" and its phone "demo-phone": tokens issued at this start,',
      'printed only on a terminal (this output is not one). Start the server in a terminal to see',
      'them or, with DATABASE_URL, issue new ones:',
      ...ROTATE_WITH_CLI,
      openApi,
    ].join('\n');
  }
  const body = JSON.stringify({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 } } });
  return [
    `Demo account "demo": API token ${demo.token}`,
    demo.deviceToken === null
      ? 'Demo device "demo-phone" already exists (its token is stored hashed: TILECAST_DEMO_ROTATE=1 issues a new one)'
      : `Demo device "demo-phone": device token ${demo.deviceToken}`,
    'Start the demo activity:',
    `  curl -X PATCH ${baseUrl}/activity/build -H 'Authorization: Token ${demo.token}' -H 'Content-Type: application/json' -d '${body}'`,
    openApi,
  ].join('\n');
}
