import { createClient } from '@tilecast/client';
import { runSmartHome } from './index.js';

/** `npm start -w examples/smart-home`, next to a running `npm start` (the reference server). */
const token = process.env.TILECAST_TOKEN;
if (!token) {
  console.error('Set TILECAST_TOKEN to the API token printed by `npm start` (and TILECAST_URL if not http://127.0.0.1:8080).');
  process.exit(1);
}
const client = createClient({ baseUrl: process.env.TILECAST_URL || 'http://127.0.0.1:8080', token });
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());

runSmartHome({ client, slug: process.env.TILECAST_WIDGET || 'lights', signal: stop.signal }).catch((error: unknown) => {
  console.error(`smart-home stopped: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
