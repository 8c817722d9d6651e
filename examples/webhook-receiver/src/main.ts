import { createServer } from 'node:http';
import { createWebhookReceiver } from './receiver.js';

/**
 * `npm start -w examples/webhook-receiver`: WEBHOOK_SECRET (the entry's secret),
 * PUBLIC_BASE_URL (the https://host Tilecast calls; put TLS on port 443 in front of this
 * process), PORT (default 3000).
 */
const secret = process.env.WEBHOOK_SECRET;
const publicBaseUrl = process.env.PUBLIC_BASE_URL;
if (!secret || !publicBaseUrl) {
  console.error('set WEBHOOK_SECRET and PUBLIC_BASE_URL (e.g. https://hooks.example.com)');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 3000);
const receiver = createWebhookReceiver({
  secret,
  publicBaseUrl,
  onEvent: (eventId, body) => console.log(`event ${eventId}:`, JSON.stringify(body)),
});
createServer(receiver).listen(port, '127.0.0.1', () => console.log(`webhook receiver on http://127.0.0.1:${port}, for ${publicBaseUrl}`));
