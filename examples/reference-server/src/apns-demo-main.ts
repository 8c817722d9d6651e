import { apnsDemoInstructions, describePush, startApnsDemo } from './apns-demo.js';

/** `npm run apns-demo`: the APNs test double for the README walk-through, until SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const demo = await startApnsDemo();
  console.log(apnsDemoInstructions(demo.env, process.env.TILECAST_URL || undefined));
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    demo.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let printed = 0;
  while (!stopped) {
    await demo.double.waitForRequests(printed + 1);
    for (const push of demo.double.received.slice(printed)) console.log(describePush(push));
    printed = demo.double.received.length;
  }
}

main().catch((error: unknown) => {
  console.error(`APNs demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
