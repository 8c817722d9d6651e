import { a1, a2, a3 } from './apns.mjs';
import { a4 } from './apns-broadcast.mjs';
import { a1p, a2p } from './apns-postgres.mjs';
import { d1, p0, p1, p1f, p1h, p2, p3 } from './publish.mjs';
import { s3 } from './broadcast.mjs';
import { f1, f2 } from './fcm.mjs';
import { s1, s2, s4 } from './streams.mjs';
import { w1 } from './webhooks.mjs';

/** Every scenario, in the order `npm run bench` runs them. */
export const scenarios = [p0, p1, p2, p1h, p1f, p3, d1, s1, s2, s3, s4, w1, a1, a2, a1p, a2p, a3, a4, f1, f2];
