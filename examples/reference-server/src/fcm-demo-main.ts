import { demoServerSettings } from './apns-demo.js';
import { describeMessage, fcmDemoInstructions, startFcmDemo } from './fcm-demo.js';
import { integer, SettingProblem } from './setting-parsers.js';

/** The reference server's default port (`PORT`). */
const DEFAULT_PORT = 8080;

/** `npm run fcm-demo`: the FCM test double for the README walk-through, until SIGINT/SIGTERM. */
async function main(): Promise<void> {
  // The reference server's port the walk-through uses (PORT, as the server reads it), e.g.
  // when 8080 is taken by another `npm start`.
  const port = integer(1, 65535)(process.env.PORT || String(DEFAULT_PORT), 'PORT');
  const demo = await startFcmDemo();
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    demo.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Before anything is printed: whoever reads the instructions may stop it at once.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(fcmDemoInstructions(demoServerSettings(demo.env, port), process.env.TILECAST_URL || undefined));
  let printed = 0;
  while (!stopped) {
    await demo.double.waitForRequests(printed + 1);
    for (const message of demo.double.received.slice(printed)) console.log(describeMessage(message));
    printed = demo.double.received.length;
  }
}

main().catch((error: unknown) => {
  if (error instanceof SettingProblem) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(`FCM demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
