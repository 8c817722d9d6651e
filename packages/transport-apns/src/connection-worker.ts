// The script of transport-apns's connection worker (`WorkerConnectionPool`): the shared
// connection worker of `@tilecast/core/push`, sending APNs requests. Plain JavaScript once
// built, found beside the entry that starts it.
import { serveConnections } from '@tilecast/core/push';
import { APNS_FORMAT } from './request.js';

serveConnections(APNS_FORMAT);
