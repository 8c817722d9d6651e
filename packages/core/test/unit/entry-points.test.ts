/**
 * The core's public surface, split by audience: users (`@tilecast/core`), store authors
 * (`@tilecast/core/storage`), adapter authors (`@tilecast/core/adapter`), clients and tools
 * (`@tilecast/core/schemas`), webhook receivers (`@tilecast/core/verify`), push transport
 * authors (`@tilecast/core/push`). Internals and another audience's helpers stay out of each
 * entry; the Node I/O lives in `@tilecast/adapter-node-http`. The run-time names are pinned
 * here, the types in `packages/core/api/*.api.md` (`npm run api:check`); the rule for adding
 * one is docs/decisions/0101-public-api.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as adapter from '../../src/adapter.js';
import * as root from '../../src/index.js';
import * as schemas from '../../src/schemas/public.js';
import * as storage from '../../src/storage/index.js';
import * as push from '../../src/transport/push/index.js';
import * as verify from '../../src/webhooks/verify.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, unknown>;
};

describe('entry points of @tilecast/core', () => {
  it('publishes one entry per audience, and no Node I/O', () => {
    expect(Object.keys(packageJson.exports).sort()).toEqual(['.', './adapter', './json-schemas/*.schema.json', './push', './schemas', './storage', './verify']);
  });

  it('lets apps import a template JSON Schema by package path', async () => {
    const gauge = await import('@tilecast/core/json-schemas/widget/gauge.schema.json', { with: { type: 'json' } });
    expect(gauge.default).toMatchObject({ $schema: expect.any(String), type: 'object' });
  });

  it('gives store authors the helpers stores share', () => {
    expect(Object.keys(storage).sort()).toEqual([
      'DEAD_LETTER_TTL_MS',
      'StorageUnavailableError',
      'WIDGET_PUSH_WINDOW_MS',
      'actionKindIn',
      'activityUpdateTime',
      'claimed',
      'guardUnholdable',
      'isClaimable',
      'isHoldable',
      'isStorageUnavailable',
      'isoTime',
      'phaseFor',
      'supersedingJob',
      'tokenTakes',
      'writeRefusal',
    ]);
  });

  it('gives adapter authors the seam', () => {
    expect(Object.keys(adapter).sort()).toEqual([
      'BODY_LIMIT_BYTES',
      'createMountTable',
      'errorToResult',
      'internalErrorResult',
      'jsonDecodeError',
      'mountPrefix',
      'ownsPath',
      'readJsonBody',
      'responseHead',
      'splitTarget',
    ]);
  });

  it('gives clients and tools the schema of each template and update body, not their building blocks', () => {
    expect(Object.keys(schemas).sort()).toEqual([
      'activityContentSchemas',
      'activityDataSchema',
      'activityTemplateNames',
      'batteryWidgetSchema',
      'budgetWidgetSchema',
      'countdownWidgetSchema',
      'energyWidgetSchema',
      'gaugeWidgetSchema',
      'genericActivitySchema',
      'listWidgetSchema',
      'monitorActivitySchema',
      'pricesWidgetSchema',
      'progressActivitySchema',
      'progressWidgetSchema',
      'statusWidgetSchema',
      'switchboardWidgetSchema',
      'trendWidgetSchema',
      'widgetContentSchemas',
      'widgetDataSchema',
      'widgetTemplateNames',
    ]);
    expect(Object.keys(schemas.activityContentSchemas)).toEqual([...schemas.activityTemplateNames]);
    expect(Object.keys(schemas.widgetContentSchemas)).toEqual([...schemas.widgetTemplateNames]);
  });

  it('gives webhook receivers the verifier alone', () => {
    expect(Object.keys(verify).sort()).toEqual(['WebhookVerificationError', 'verifyWebhook']);
  });

  it('gives push transport authors the pieces both transports are built of', () => {
    expect(Object.keys(push).sort()).toEqual([
      'Admission',
      'BatchReads',
      'ConnectionPool',
      'LatestWins',
      'PushDelivery',
      'RequestLog',
      'Retries',
      'RetryWaits',
      'Superseding',
      'TRANSPORT_CLOSED',
      'WITHDRAWN',
      'WorkerConnectionPool',
      'answerFields',
      'createPushPipeline',
      'givenUp',
      'isRetryable',
      'outcomeOf',
      'pushConnections',
      'pushKey',
      'pushTransportSettings',
      'retryAfterMs',
      'retryDelayMs',
      'selfSignedCertificate',
      'serveConnections',
      'startDoubleServer',
      'workerScriptPath',
      'zeroPushCounters',
    ]);
  });

  it('gives applications what they embed, configure, observe and meet, and nothing else', () => {
    expect(Object.keys(root).sort()).toEqual([
      'BODY_LIMIT_BYTES',
      'DEFAULT_ACTIVITY_QUOTA',
      'DEFAULT_DELIVERY_PAGE',
      'DEFAULT_TRANSPORT_NAME',
      'DEVICE_STREAM_TRANSPORT',
      'InvalidArgumentError',
      'MAX_ACCOUNT_PAGE',
      'MAX_DELIVERY_PAGE',
      'MAX_DEVICE_STREAMS',
      'MAX_EVENT_STREAMS',
      'OwnDeviceShareError',
      'PUSH_OUTCOMES',
      'StorageUnavailableError',
      'TilecastError',
      'UNMATCHED_ROUTE',
      'UnknownRecordError',
      'buildOpenApiDocument',
      'combineObservers',
      'consoleLogger',
      'createManagementApi',
      'createRecordingTransport',
      'createTilecast',
      'deviceTokenAuthenticator',
      'isStorageUnavailable',
      'isTilecastError',
      'loadSeed',
      'silentLogger',
      'systemClock',
      'templateJsonSchemas',
    ]);
  });

  it("keeps the other audiences' helpers and the webhook internals out of the users' entry", () => {
    const internals = [
      'fail',
      'isoTime',
      'writeRefusal',
      'guardUnholdable',
      'tokenTakes',
      'actionKindIn',
      'errorToResult',
      'readJsonBody',
      'jsonDecodeError',
      'guardedLookup',
      'createGuardedAgent',
      'classifyAddress',
      'fillText',
      'redactUrl',
      'createWebhookDispatcher',
      'signatureHeader',
      'verifyWebhook',
    ];
    expect(Object.keys(root).filter((name) => internals.includes(name))).toEqual([]);
    // Errors a user can meet (a management call while the store is down) stay there too.
    expect(root.StorageUnavailableError).toBe(storage.StorageUnavailableError);
  });
});
