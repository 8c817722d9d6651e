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
 * The account `npm start` creates when no seed file is given, so the quick start works at
 * once. Created only when missing: with PostgreSQL a restart keeps it and its tokens.
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

export function demoInstructions(baseUrl: string, demo: DemoAccount): string {
  if (demo.token === null) {
    return [
      'Demo account "demo" already exists, with the tokens printed when it was created',
      '(tokens are stored hashed, so they cannot be shown again). To issue new ones, start once',
      'with TILECAST_DEMO_ROTATE=1 (the old ones stop working), or call',
      "tilecast.management.rotateToken('demo') from app-side code.",
      `OpenAPI: ${baseUrl}/openapi.json`,
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
    `OpenAPI: ${baseUrl}/openapi.json`,
  ].join('\n');
}
