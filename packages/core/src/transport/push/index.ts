/**
 * `@tilecast/core/push`: the pieces a push transport (`@tilecast/transport-apns`,
 * `@tilecast/transport-fcm`) is built of, shared so that each one gets the same pacing,
 * latest-wins queues, retries, HTTP/2 connections and connection worker
 * (docs/decisions/0105-push-transport-kit.md). For transport authors; an application never needs it.
 */
export { Admission, type AdmissionWork } from './admission.js';
export { Superseding, pushKey, type SupersedingJob, type SupersedingTicket } from './superseding.js';
export { LatestWins, type LatestWinsSteps, type PushTicket } from './latest-wins.js';
export { BatchReads, type BatchRead } from './batch-reads.js';
export { retryAfterMs, retryDelayMs } from './retry.js';
export { RetryWaits } from './retry-waits.js';
export { Retries, type RetryRules, type RetryStep, type GiveUp } from './retries.js';
export { PushDelivery, type PushJob, type DeliveryResult, type DeliveryRules, type PushDeliveryOptions } from './delivery.js';
export type { PushCredential, CredentialRenewal } from './credential.js';
export { zeroPushCounters, type PushCounters } from './counters.js';
export {
  pushConnections,
  pushTransportSettings,
  type PushBacklog,
  type PushConnectionsSetup,
  type PushTransportOptions,
  type PushTransportSettings,
} from './transport-setup.js';
export { createPushPipeline, type PushPipeline, type PushPipelineSetup } from './pipeline.js';
export { givenUp, isRetryable, answerFields } from './report.js';
export { outcomeOf } from '../observed-transport.js';
export { TRANSPORT_CLOSED, WITHDRAWN, type ConnectionSettings, type PushAnswer } from './connection.js';
export type { PushRequest, RequestFormat } from './request-format.js';
export { ConnectionPool, type Connections, type ConnectionLoad, type ConnectionPoolOptions } from './connection-pool.js';
export { WorkerConnectionPool, workerScriptPath, type WorkerPoolOptions } from './worker-pool.js';
export type { WorkerSettings } from './worker-protocol.js';
export { serveConnections } from './worker-main.js';
export { selfSignedCertificate } from './certificate.js';
export { startDoubleServer, type DoubleServer, type DoubleServerOptions } from './double-server.js';
export { RequestLog } from './request-log.js';
export type { Clock } from '../../clock.js';
export type { ActivityPush, PushOutcome, PushReport, WidgetPush } from '../device-transport.js';
export type { ActivityChannels, ActivityStateName, WidgetPrivacy } from '../../storage/records.js';
