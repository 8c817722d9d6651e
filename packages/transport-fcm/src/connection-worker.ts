// The script of transport-fcm's connection worker (`WorkerConnectionPool`): the shared
// connection worker of `@tilecast/core/push`, sending FCM requests. Plain JavaScript once
// built, found beside the entry that starts it.
import { serveConnections } from '@tilecast/core/push';
import { FCM_FORMAT } from './request.js';

serveConnections(FCM_FORMAT);
