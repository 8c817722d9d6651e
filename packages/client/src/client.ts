import type {
  ActivityContent,
  ActivityContentEcho,
  ActivityState,
  ActivityTemplateName,
  WidgetContent,
  WidgetContentEcho,
  WidgetTemplateName,
} from './content.js';
import { streamEvents, type EventsOptions, type TilecastEvent } from './events.js';
import { connect, requestJson, resourcePath, type Connection, type Fetch } from './http.js';
import { systemTiming, type BackoffOptions, type Timing } from './timing.js';
import type { WebhookMap, WebhookMapInput } from './webhooks.js';

export interface ClientOptions {
  /** The service's base address, for example `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The account's API token (sent as `Authorization: Token <token>`). */
  token: string;
  /** Defaults to the global `fetch`. */
  fetch?: Fetch;
  /** Back-off of `events()` when a connection attempt fails. */
  backoff?: BackoffOptions;
  /** How many event ids `events()` remembers to drop repeats. Default 10000. */
  dedupeSize?: number;
  /** Clock, sleep and randomness of `events()`; inject fakes in tests. */
  timing?: Timing;
}

/** `PATCH /activity/{slug}` body; `T` narrows it to one template. */
export interface ActivityUpdate<T extends ActivityTemplateName = ActivityTemplateName> {
  state: ActivityState;
  // The `& {template}` lets the compiler infer `T` from the literal, then check every field.
  content: ActivityContent<T> & { template: T };
}

export type ActivityEcho<T extends ActivityTemplateName = ActivityTemplateName> = T extends ActivityTemplateName
  ? { state: ActivityState; content: ActivityContentEcho<T> }
  : never;

/** `PATCH /widget/{slug}` body. `stale_after` omitted keeps the widget's setting; `null` clears it. */
export interface WidgetUpdate<T extends WidgetTemplateName = WidgetTemplateName> {
  content: WidgetContent<T> & { template: T };
  stale_after?: number | null;
}

export type WidgetEcho<T extends WidgetTemplateName = WidgetTemplateName> = T extends WidgetTemplateName
  ? { content: WidgetContentEcho<T>; stale_after: number | null }
  : never;

export interface ActivityHandle<T extends ActivityTemplateName> {
  /** Publishes state and content; resolves to what the service stored. */
  update<U extends T>(body: ActivityUpdate<U>): Promise<ActivityEcho<U>>;
}

export interface WidgetHandle<T extends WidgetTemplateName> {
  /** Replaces the content as a whole; resolves to what the service stored. */
  update<U extends T>(body: WidgetUpdate<U>): Promise<WidgetEcho<U>>;
  webhooks: {
    /** Replaces the whole webhook map; resolves to it, redacted. */
    put(body: WebhookMapInput): Promise<WebhookMap>;
    /** The map, redacted, with delivery timestamps. */
    get(): Promise<WebhookMap>;
    /** Removes every entry. */
    delete(): Promise<void>;
  };
}

export interface TilecastClient {
  /** `T` pins the activity's template, so content of another template does not compile. */
  activity<T extends ActivityTemplateName = ActivityTemplateName>(slug: string): ActivityHandle<T>;
  /** `T` pins the widget's template, so content of another template does not compile. */
  widget<T extends WidgetTemplateName = WidgetTemplateName>(slug: string): WidgetHandle<T>;
  /** The account's events, resumed and de-duplicated across reconnects (see `EventsOptions`). */
  events(options?: EventsOptions): AsyncGenerator<TilecastEvent, void, undefined>;
}

export function createClient(options: ClientOptions): TilecastClient {
  const connection = connect(options);
  const settings = {
    timing: options.timing ?? systemTiming,
    backoff: { initialDelayMs: 1000, maxDelayMs: 30_000, ...options.backoff },
    dedupeSize: options.dedupeSize ?? 10_000,
  };
  return {
    activity: (slug) => activityHandle(connection, slug),
    widget: (slug) => widgetHandle(connection, slug),
    events: (eventOptions) => streamEvents(connection, settings, eventOptions),
  };
}

function activityHandle<T extends ActivityTemplateName>(connection: Connection, slug: string): ActivityHandle<T> {
  const path = resourcePath('activity', slug);
  return { update: (body) => requestJson(connection, 'PATCH', path, body) };
}

function widgetHandle<T extends WidgetTemplateName>(connection: Connection, slug: string): WidgetHandle<T> {
  const path = resourcePath('widget', slug);
  const hooks = `${path}/webhooks`;
  return {
    update: (body) => requestJson(connection, 'PATCH', path, body),
    webhooks: {
      put: (body) => requestJson(connection, 'PUT', hooks, body),
      get: () => requestJson(connection, 'GET', hooks),
      delete: () => requestJson(connection, 'DELETE', hooks),
    },
  };
}
