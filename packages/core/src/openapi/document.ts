/**
 * The OpenAPI 3.1 document served at `/openapi.json`, generated from the validation
 * schemas themselves (see `components.ts`, `convert.ts`).
 *
 * Only the publisher endpoints are described; `/openapi.json` itself is not listed (it
 * is the one endpoint without authentication).
 */
import { convertComponents, type ComponentSchemas } from './convert.js';
import { namedSchemas } from './components.js';

export interface OpenApiOptions {
  /** `info.title`; default `Tilecast`. */
  title?: string;
}

const SECURITY_SCHEME = 'APIToken';

export function buildOpenApiDocument(options: OpenApiOptions = {}): object {
  const components = convertComponents(namedSchemas);
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Tilecast',
      version: '0.1.0',
      description: 'Push content to Live Activities and home-screen widgets.',
    },
    paths: {
      '/activity/{activity_id}': { patch: activityOperation(components) },
      '/widget/{slug}': { patch: widgetOperation(components) },
      '/widget/{slug}/webhooks': webhookOperations(components),
    },
    components: {
      schemas: components.schemas,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Token <API_TOKEN>: the API token shown in the app after subscribing.',
        },
      },
    },
  };
}

function activityOperation(components: ComponentSchemas): object {
  return {
    operationId: 'update_activity',
    summary: 'Update an activity',
    description: 'Stores the new state and content and pushes them to every subscribed device.',
    tags: ['activities'],
    security: [{ [SECURITY_SCHEME]: [] }],
    parameters: [pathParameter('activity_id', 'Activity Id', 'The activity slug.')],
    requestBody: jsonBody(components.ref('ActivityData', 'input')),
    responses: {
      '200': response('The stored state and content.', components.ref('ActivityData', 'output')),
      ...errorResponses(components, 'Activity not found', 'Too many ongoing activities'),
    },
  };
}

function widgetOperation(components: ComponentSchemas): object {
  return {
    operationId: 'update_widget',
    summary: 'Update a widget',
    description: 'Replaces the widget content as a whole and notifies every device that shows the widget.',
    tags: ['widgets'],
    security: [{ [SECURITY_SCHEME]: [] }],
    parameters: [pathParameter('slug', 'Slug', 'The widget slug.')],
    requestBody: jsonBody(components.ref('WidgetData', 'input')),
    responses: {
      '200': response('The stored content and the effective stale_after.', components.ref('WidgetData', 'output')),
      ...errorResponses(components, 'Widget not found', 'Invalid widget content'),
    },
  };
}

/** `PUT`, `GET`, `DELETE /widget/{slug}/webhooks` (reference-deployment §6). */
function webhookOperations(components: ComponentSchemas): object {
  const common = { tags: ['webhooks'], security: [{ [SECURITY_SCHEME]: [] }], parameters: [pathParameter('slug', 'Slug', 'The widget slug.')] };
  const error = components.ref('ErrorResponse', 'output');
  const refusals = {
    '401': response('Authorization header missing, malformed, or token unknown.', error, { detail: 'Could not validate credentials' }),
    '402': response('The account has no active subscription.', error, { detail: 'No active subscription was found' }),
    '404': response('No such widget on the account.', error, { detail: 'Widget not found' }),
  };
  const map = response('The map, redacted: no secret, header values and URL query values as `***`.', components.ref('WebhookMapResponse', 'output'));
  return {
    put: {
      ...common,
      operationId: 'put_widget_webhooks',
      summary: 'Replace the webhook map',
      description: 'Replaces the whole map (at most 9 entries: action ids and `*`) and returns it redacted.',
      requestBody: jsonBody(components.ref('WebhookMap', 'input')),
      responses: {
        '200': map,
        ...refusals,
        '422': response(
          'Invalid map (field-error array); never echoes a secret, header value or query value.',
          components.ref('HTTPValidationError', 'output'),
        ),
      },
    },
    get: {
      ...common,
      operationId: 'get_widget_webhooks',
      summary: 'Read the webhook map',
      description: 'The map, redacted, with `last_success_at` and `last_failure_at` per entry.',
      responses: { '200': map, ...refusals },
    },
    delete: {
      ...common,
      operationId: 'delete_widget_webhooks',
      summary: 'Remove every webhook entry',
      responses: { '204': { description: 'Removed.' }, ...refusals },
    },
  };
}

function pathParameter(name: string, title: string, description: string): object {
  return { name, in: 'path', required: true, description, schema: { type: 'string', title } };
}

function jsonBody(schema: object): object {
  return { required: true, content: { 'application/json': { schema } } };
}

function response(description: string, schema: object, example?: object): object {
  const media = example === undefined ? { schema } : { schema, example };
  return { description, content: { 'application/json': media } };
}

/**
 * The refusals of both endpoints. A 422 is either the field-error array (body shape) or a
 * string detail (`Too many ongoing activities` / `Invalid widget content`), so its
 * schema is `anyOf` the two.
 */
function errorResponses(components: ComponentSchemas, notFound: string, other422: string): Record<string, object> {
  const error = components.ref('ErrorResponse', 'output');
  return {
    '400': response('Template mismatch: content.template differs from the template fixed at creation.', error, { detail: 'Template mismatch' }),
    '401': response('Authorization header missing, malformed, or token unknown.', error, { detail: 'Could not validate credentials' }),
    '402': response('The account has no active subscription.', error, { detail: 'No active subscription was found' }),
    '404': response(`No such slug on the account.`, error, { detail: notFound }),
    '422': response(`Body validation error (field-error array), or {"detail": "${other422}"}.`, {
      anyOf: [components.ref('HTTPValidationError', 'output'), error],
    }),
  };
}
