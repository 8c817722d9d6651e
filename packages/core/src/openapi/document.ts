/**
 * The OpenAPI 3.1 document served at `/openapi.json`, generated from the validation
 * schemas themselves (see `components.ts`, `convert.ts`).
 *
 * It describes the whole public API: the publisher endpoints, `GET /events`, the webhook
 * map, the device API (where the host mounts it, `/device` by default) under its own
 * security scheme, and the webhook requests the service sends (`webhooks`). `/openapi.json`
 * itself is not listed (it is the one endpoint without authentication).
 */
import { EVENT_TYPE } from '../presses/press-intake.js';
import { namedSchemas } from './components.js';
import type { JsonSchema } from '@valibot/to-json-schema';
import { SubjectFilter } from '../events/filters.js';
import { addRequestStringRules, convertComponents, parameterSchema, refsIn, type ComponentSchemas } from './convert.js';
import { eventStreamResponse, jsonBody, jsonResponse, pathParameter, refusals } from './responses.js';

export interface OpenApiServer {
  url: string;
  description?: string;
}

export interface OpenApiOptions {
  /** `info.title`; default `Tilecast`. */
  title?: string;
  /**
   * `servers`. Default `[{url: '/'}]`: the host that serves the document, at its root. A
   * host that mounts Tilecast under a path (or another origin) names it here, e.g.
   * `[{url: '/tilecast'}]`.
   */
  servers?: readonly OpenApiServer[];
  /**
   * Where the host mounts `tilecast.device`, relative to the servers: default `/device`
   * (the reference deployment). `null` leaves the device API out of the document.
   */
  devicePath?: string | null;
}

const PUBLISHER = 'APIToken';
const DEVICE = 'DeviceToken';

export function buildOpenApiDocument(options: OpenApiOptions = {}): object {
  const components = convertComponents(namedSchemas);
  const devicePath = options.devicePath === undefined ? '/device' : options.devicePath;
  const paths: Record<string, object> = {
    '/activity/{activity_id}': { patch: activityOperation(components) },
    '/widget/{slug}': { patch: widgetOperation(components) },
    '/widget/{slug}/webhooks': webhookOperations(components),
    '/events': { get: eventsOperation(components) },
  };
  if (devicePath !== null) {
    const prefix = devicePath.replace(/\/+$/, '');
    paths[`${prefix}/presses`] = { post: pressOperation(components) };
    paths[`${prefix}/stream`] = { get: deviceStreamOperation(components) };
    Object.assign(paths, deviceSyncOperations(components, prefix));
  }
  const tags = [
    { name: 'activities', description: 'Live Activities: start, update and end them.' },
    { name: 'widgets', description: 'Home-screen widgets: replace their content.' },
    { name: 'webhooks', description: "A widget's webhook map: where its presses are delivered." },
    { name: 'events', description: 'The account’s event stream (server-sent events).' },
    ...(devicePath === null ? [] : [{ name: 'device', description: 'The phones’ API: report presses, receive pushes. Authenticated per device.' }]),
  ];
  const securitySchemes: Record<string, object> = {
    [PUBLISHER]: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'Token <API_TOKEN>: the API token shown in the app after subscribing.',
    },
  };
  if (devicePath !== null) {
    securitySchemes[DEVICE] = {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'Device <device token>: the token of one phone (an embedder may mount the device API behind its own device authentication).',
    };
  }
  const document = {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Tilecast',
      version: '0.1.0',
      description:
        'Push content to Live Activities and home-screen widgets. String lengths (`minLength`, `maxLength`) count UTF-16 code units, ' +
        'as JavaScript does: a character outside the Basic Multilingual Plane (most emoji) counts as two.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: (options.servers ?? [{ url: '/', description: 'The server that serves this document.' }]).map((server) => ({ ...server })),
    tags,
    paths,
    webhooks: { [EVENT_TYPE]: { post: webhookDelivery(components) } },
    components: { schemas: components.schemas, securitySchemes },
  };
  document.components.schemas = usedComponents(document, withRequestStringRules(paths, components.schemas));
  return document;
}

/**
 * The schemas, those a request body can reach (a request's own, and the shapes it shares
 * with responses) with the body reader's string rules (`addRequestStringRules`). A response-only shape is left as it is: an
 * error's detail may quote a query value the body reader never saw.
 */
function withRequestStringRules(paths: Record<string, object>, schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const bodies = Object.values(paths).flatMap((item) => Object.values(item).map((operation: { requestBody?: unknown }) => operation.requestBody));
  const reached = reachableComponents(refsIn(bodies), schemas);
  const ruled: Record<string, JsonSchema> = { ...schemas };
  for (const name of reached) {
    const schema = structuredClone(schemas[name]!);
    addRequestStringRules(schema);
    ruled[name] = schema;
  }
  return ruled;
}

/** `names` and every component they refer to, directly or not. */
function reachableComponents(names: string[], schemas: Record<string, unknown>): Set<string> {
  const reached = new Set<string>();
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    pending.push(...refsIn(schemas[name]));
  }
  return reached;
}

const publisher = [{ [PUBLISHER]: [] }];

function activityOperation(components: ComponentSchemas): object {
  const r = refusals(components);
  return {
    operationId: 'update_activity',
    summary: 'Update an activity',
    description: 'Stores the new state and content and pushes them to every subscribed device.',
    tags: ['activities'],
    security: publisher,
    parameters: [pathParameter('activity_id', 'Activity Id', 'The activity slug.')],
    requestBody: jsonBody(components.ref('ActivityData', 'input')),
    responses: {
      '200': jsonResponse('The stored state and content.', components.ref('ActivityData', 'output')),
      ...r.templateMismatch,
      ...r.unauthorized,
      ...r.subscription,
      ...r.notFound('No such slug on the account.', 'Activity not found'),
      ...r.tooLarge,
      ...r.mediaType,
      ...r.fieldErrorsOr('Too many ongoing activities'),
      ...r.unavailable,
    },
  };
}

function widgetOperation(components: ComponentSchemas): object {
  const r = refusals(components);
  return {
    operationId: 'update_widget',
    summary: 'Update a widget',
    description: 'Replaces the widget content as a whole and notifies every device that shows the widget.',
    tags: ['widgets'],
    security: publisher,
    parameters: [pathParameter('slug', 'Slug', 'The widget slug.')],
    requestBody: jsonBody(components.ref('WidgetData', 'input')),
    responses: {
      '200': jsonResponse('The stored content and the effective stale_after.', components.ref('WidgetData', 'output')),
      ...r.templateMismatch,
      ...r.unauthorized,
      ...r.subscription,
      ...r.notFound('No such slug on the account.', 'Widget not found'),
      ...r.tooLarge,
      ...r.mediaType,
      ...r.fieldErrorsOr('Invalid widget content'),
      ...r.unavailable,
    },
  };
}

/** `PUT`, `GET`, `DELETE /widget/{slug}/webhooks` (docs/contract/events-and-webhooks.md#webhook-map-put, docs/contract/events-and-webhooks.md#webhook-map-get, docs/contract/events-and-webhooks.md#webhook-map-delete). */
function webhookOperations(components: ComponentSchemas): object {
  const r = refusals(components);
  const common = { tags: ['webhooks'], security: publisher, parameters: [pathParameter('slug', 'Slug', 'The widget slug.')] };
  const refused = { ...r.unauthorized, ...r.subscription, ...r.notFound('No such widget on the account.', 'Widget not found') };
  const map = jsonResponse('The map, redacted: no secret, header values and URL query values as `***`.', components.ref('WebhookMapResponse', 'output'));
  return {
    put: {
      ...common,
      operationId: 'put_widget_webhooks',
      summary: 'Replace the webhook map',
      description: 'Replaces the whole map (at most 9 entries: action ids and `*`) and returns it redacted.',
      requestBody: jsonBody(components.ref('WebhookMap', 'input')),
      responses: {
        '200': map,
        ...refused,
        ...r.tooLarge,
        ...r.mediaType,
        ...r.fieldErrors('Invalid map (field-error array); never echoes a secret, header value or query value.'),
        ...r.unavailable,
      },
    },
    get: {
      ...common,
      operationId: 'get_widget_webhooks',
      summary: 'Read the webhook map',
      description: 'The map, redacted, with `last_success_at` and `last_failure_at` per entry.',
      responses: { '200': map, ...refused, ...r.unavailable },
    },
    delete: {
      ...common,
      operationId: 'delete_widget_webhooks',
      summary: 'Remove every webhook entry',
      responses: { '204': { description: 'Removed.' }, ...refused, ...r.unavailable },
    },
  };
}

const EVENTS_EXAMPLE =
  'retry: 1000\nid: u:41\n\n' +
  'id: u:42\ndata: {"id":"0b6a3f9e-3c1e-5d2b-9a57-2f1d8c4e7a10","request_id":"01J9Z3K8","type":"widget.action.v1",' +
  '"subject":{"kind":"widget","slug":"lights"},"occurred_at":"2026-05-01T12:00:00.000Z","expires_at":"2026-05-01T12:00:05.000Z",' +
  '"data":{"action":"hall","kind":"toggle","value":true}}\n\n: ping\n\n';

/** `GET /events` (docs/contract/events-and-webhooks.md#events-endpoint). */
function eventsOperation(components: ComponentSchemas): object {
  const r = refusals(components);
  const repeatable = (name: string, description: string, items: object = { type: 'string' }) => ({
    name,
    in: 'query',
    required: false,
    description,
    style: 'form',
    explode: true,
    schema: { type: 'array', items },
  });
  return {
    operationId: 'get_events',
    summary: 'Open the event stream',
    description:
      'A server-sent-events stream of every event of the account (presses on its widgets). It opens with `retry: 1000` and an `id:` line ' +
      'with its starting position; each event is an `id:` line (a position `u:<number>`, opaque) and one `data:` line holding an ' +
      '`EventEnvelope` (see components) as JSON (the same envelope a webhook receives: see `webhooks`). ' +
      'While idle a `: ping` comment comes every 20 seconds; the server ends every stream after 15 minutes and the client reconnects ' +
      'with `Last-Event-ID`. At most 4 concurrent streams per account.',
    tags: ['events'],
    security: publisher,
    parameters: [
      repeatable('types', 'Only events of these types (repeat the parameter for several). Omitted: every type. Unknown types match nothing.'),
      repeatable(
        'subject',
        'Only events about these resources, each `<kind>/<slug>` with kind `widget` or `activity`. Omitted: every subject.',
        parameterSchema(SubjectFilter),
      ),
      {
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        description:
          'The last `id:` seen, unchanged: the stream first replays the missed events that have not expired. An unrecognised value replays every unexpired event.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': eventStreamResponse(
        'The event stream. During a temporary outage (the store is unavailable, even for the token lookup) the answer is also `200`: ' +
          'a stream holding only a `retry:` line, then its end; the client reconnects after the delay.',
        EVENTS_EXAMPLE,
      ),
      ...r.unauthorized,
      ...r.subscription,
      ...r.detail('422', 'A `subject` filter not of the form `<kind>/<slug>`, or with an unknown kind.', 'Invalid subject filter: lights'),
      ...r.detail('429', 'A fifth concurrent stream on the account.', 'Too many event streams'),
    },
  };
}

const device = [{ [DEVICE]: [] }];

/** `POST /device/presses` (docs/contract/device-api.md#press-report). */
function pressOperation(components: ComponentSchemas): object {
  const r = refusals(components);
  return {
    operationId: 'post_device_press',
    summary: 'Report a press',
    description:
      'A phone reports a press on a tile of a widget it shows. `value` is required for a toggle and absent for a button; the kind is ' +
      'taken from the action in the widget’s current content. The same `request_id` on the same widget again returns the same ' +
      '`event_id` and produces no second event.',
    tags: ['device'],
    security: device,
    requestBody: jsonBody(components.ref('PressReport', 'input')),
    responses: {
      '202': jsonResponse('Accepted: the event is logged for `/events` and handed to the webhooks.', components.ref('PressAccepted', 'output')),
      ...r.deviceUnauthorized,
      ...r.notFound('No such widget, or not shown on this device.', 'Widget not found'),
      ...r.tooLarge,
      ...r.mediaType,
      ...r.fieldErrors('Field-error array: bad types, an unknown action id, a missing or an extra `value`.'),
      ...r.detail('429', 'Refused by a press rate limit (per device and widget, per owner account); no event is produced.', 'Too many presses'),
      ...r.unavailable,
    },
  };
}

const DEVICE_STREAM_EXAMPLE =
  'retry: 1000\n\n' +
  'event: widget\ndata: {"owner":"acme","slug":"boiler","content":{"template":"gauge","value":21,"min_value":0,"max_value":100,"unit":null,"label":null,"color":null},' +
  '"stale_after":null,"updated_at":"2026-05-01T12:00:00.000Z","privacy":"visible"}\n\n';

/** `GET /device/stream` (docs/contract/device-api.md#device-stream). */
function deviceStreamOperation(components: ComponentSchemas): object {
  const r = refusals(components);
  return {
    operationId: 'get_device_stream',
    summary: 'Receive pushes',
    description:
      'A server-sent-events stream of what is pushed to this device (the reference deployment’s device transport). It opens with ' +
      '`retry: 1000` and a snapshot of what the device shows, then one event per push: `event: widget` with data `{owner, slug, ' +
      'content, stale_after, updated_at, privacy}`, or `event: activity` with data `{owner, slug, phase, state, content, dismissal_delay_s}` ' +
      '(`phase`: `start`, `update` or `end`). During a store outage the answer is a stream holding only a `retry:` line. ' +
      'At most 4 streams are open per device, over every instance; a fifth is refused until one ends.',
    tags: ['device'],
    security: device,
    responses: {
      '200': eventStreamResponse('The push stream (or, during an outage, only a `retry:` line).', DEVICE_STREAM_EXAMPLE),
      ...r.deviceUnauthorized,
      ...r.detail('429', 'A fifth concurrent stream of the device.', 'Too many device streams'),
    },
  };
}

/** The device sync API (docs/contract/device-api.md#device-sync-api): APNs and FCM tokens in, what the device shows out. */
function deviceSyncOperations(components: ComponentSchemas, prefix: string): Record<string, object> {
  const r = refusals(components);
  const common = { tags: ['device'], security: device };
  const owned = [pathParameter('owner', 'Owner', 'The account id of the owner.'), pathParameter('slug', 'Slug', 'The slug.')];
  const done = { '204': { description: 'Done.' } };
  const body = {
    ...r.tooLarge,
    ...r.mediaType,
    ...r.fieldErrors('Field-error array: bad types, unknown fields, a token that is not 16 to 512 hex characters.'),
  };
  const ok = (description: string, name: string) => ({ '200': jsonResponse(description, components.ref(name, 'output')) });
  return {
    [`${prefix}/push`]: {
      put: {
        ...common,
        operationId: 'put_device_push',
        summary: 'Register APNs tokens',
        description:
          "The device's push-to-start (ActivityKit) and widget (WidgetKit) tokens. An omitted token is kept; `null` removes it. `channels: true` says the app follows broadcast channels (iOS 18 and later); omitted, the stored flag is kept.",
        requestBody: jsonBody(components.ref('PushRegistration', 'input')),
        responses: { ...done, ...r.deviceUnauthorized, ...body, ...r.unavailable },
      },
      delete: {
        ...common,
        operationId: 'delete_device_push',
        summary: 'Remove every APNs token of the device',
        responses: { ...done, ...r.deviceUnauthorized, ...r.unavailable },
      },
    },
    [`${prefix}/fcm`]: {
      put: {
        ...common,
        operationId: 'put_device_fcm',
        summary: 'Register the FCM token',
        description: "The device's Firebase Cloud Messaging registration token, for Android Live Updates and widgets; it replaces the one stored.",
        requestBody: jsonBody(components.ref('FcmRegistration', 'input')),
        responses: {
          ...done,
          ...r.deviceUnauthorized,
          ...r.tooLarge,
          ...r.mediaType,
          ...r.fieldErrors('Field-error array: bad types, unknown fields, a token that is not 1 to 4096 of `A-Z a-z 0-9 : _ -`.'),
          ...r.unavailable,
        },
      },
      delete: {
        ...common,
        operationId: 'delete_device_fcm',
        summary: 'Remove the FCM token of the device',
        description: 'Also `204` when there was none.',
        responses: { ...done, ...r.deviceUnauthorized, ...r.unavailable },
      },
    },
    [`${prefix}/activities/{owner}/{slug}/push`]: {
      parameters: owned,
      put: {
        ...common,
        operationId: 'put_activity_push_token',
        summary: "Register a Live Activity's update token",
        requestBody: jsonBody(components.ref('ActivityPushToken', 'input')),
        responses: {
          ...done,
          ...r.deviceUnauthorized,
          ...r.notFound('No such activity, or not shown on this device.', 'Activity not found'),
          ...body,
          ...r.unavailable,
        },
      },
      delete: {
        ...common,
        operationId: 'delete_activity_push_token',
        summary: "Forget a Live Activity's update token",
        description: 'Also `204` when there was none.',
        responses: { ...done, ...r.deviceUnauthorized, ...r.unavailable },
      },
    },
    [`${prefix}/widgets`]: {
      get: {
        ...common,
        operationId: 'list_device_widgets',
        summary: 'Every widget shown on this device',
        description: "Its account's widgets and those shared with it: what a widget extension fetches when a WidgetKit push tells it to reload.",
        responses: { ...ok('The widgets.', 'DeviceWidgetList'), ...r.deviceUnauthorized, ...r.unavailable },
      },
    },
    [`${prefix}/widgets/{owner}/{slug}`]: {
      get: {
        ...common,
        operationId: 'get_device_widget',
        summary: 'One widget shown on this device',
        parameters: owned,
        responses: {
          ...ok('The widget.', 'DeviceWidget'),
          ...r.deviceUnauthorized,
          ...r.notFound('No such widget, or not shown on this device.', 'Widget not found'),
          ...r.unavailable,
        },
      },
    },
    [`${prefix}/activities`]: {
      get: {
        ...common,
        operationId: 'list_device_activities',
        summary: 'Every live activity shown on this device',
        description: 'So an app that was not running can catch up.',
        responses: { ...ok('The live activities.', 'DeviceActivityList'), ...r.deviceUnauthorized, ...r.unavailable },
      },
    },
  };
}

/** The request a webhook entry sends by default: `POST` with the envelope (docs/contract/events-and-webhooks.md#webhook-entry). */
function webhookDelivery(components: ComponentSchemas): object {
  const header = (name: string, required: boolean, description: string) => ({ name, in: 'header', required, description, schema: { type: 'string' } });
  return {
    operationId: 'widget_action_webhook',
    summary: 'A press, delivered to a webhook',
    description:
      'What a webhook entry sends for a press, with the default method and body: `POST` with the event envelope. An entry can set ' +
      'another method (`PUT`, `PATCH`, `GET`: no body), extra headers and a body template with placeholders. Best effort: at most ' +
      'two attempts of 2 seconds each before `expires_at`; retried on network errors, timeouts, `408`, `425`, `429` and `5xx` ' +
      '(not `501`, `505`). Deduplicate on `Idempotency-Key`.',
    tags: ['webhooks'],
    // The receiver authenticates the service by the headers or body tokens its owner set in the
    // entry, or by the signature headers below: nothing an OpenAPI security scheme can say.
    security: [],
    parameters: [
      header('Idempotency-Key', true, 'The event id (`id` of the envelope), the same on a retry.'),
      header('X-Svc-Timestamp', false, 'Unix seconds; sent when the entry has a secret.'),
      header(
        'X-Svc-Signature',
        false,
        '`v1=` and the lowercase hex HMAC-SHA256, keyed with the entry’s secret, of `{timestamp}.{METHOD}.{url}.{body_sha256}.{event_id}`; sent when the entry has a secret.',
      ),
    ],
    requestBody: jsonBody(components.ref('EventEnvelope', 'output')),
    responses: {
      '200': { description: 'Any `2xx` answer within 2 seconds is a success.' },
      '400': { description: 'Any other `4xx` (and `501`, `505`, redirects) is final: no retry.' },
      '503': { description: '`408`, `425`, `429` and `5xx` are retried once if a whole attempt still fits (`Retry-After` honoured likewise).' },
    },
  };
}

/** The components reachable from the operations: a component only one mode uses is left out. */
function usedComponents<T>(document: object, schemas: Record<string, T>): Record<string, T> {
  const { components: _components, ...rest } = document as { components: unknown };
  const used = reachableComponents(refsIn(rest), schemas);
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}
