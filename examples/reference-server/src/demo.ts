import type { Tilecast } from '@tilecast/core';

export interface DemoAccount {
  token: string;
  deviceToken: string;
}

/** The account `npm start` creates when no seed file is given, so the quick start works at once. */
export async function createDemoAccount(tilecast: Tilecast): Promise<DemoAccount> {
  const { management } = tilecast;
  const { token } = await management.createAccount({ id: 'demo', activityQuota: 2 });
  const { token: deviceToken } = await management.registerDevice({ id: 'demo-phone', account: 'demo' });
  await management.createActivity({ account: 'demo', slug: 'build', template: 'progress', dismissalDelayS: 0 });
  await management.createWidget({ account: 'demo', slug: 'lights', template: 'switchboard' });
  await management.createWidget({ account: 'demo', slug: 'boiler', template: 'gauge', staleAfter: 3600 });
  return { token, deviceToken };
}

export function demoInstructions(baseUrl: string, demo: DemoAccount): string {
  const body = JSON.stringify({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 } } });
  return [
    `Demo account "demo": API token ${demo.token}`,
    `Demo device "demo-phone": device token ${demo.deviceToken}`,
    'Start the demo activity:',
    `  curl -X PATCH ${baseUrl}/activity/build -H 'Authorization: Token ${demo.token}' -H 'Content-Type: application/json' -d '${body}'`,
    `OpenAPI: ${baseUrl}/openapi.json`,
  ].join('\n');
}
