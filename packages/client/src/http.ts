import { apiErrorFrom } from './errors.js';

export type Fetch = typeof globalThis.fetch;

/** What every request of one client shares. */
export interface Connection {
  baseUrl: string;
  authorization: string;
  fetch: Fetch;
}

export function connect(options: { baseUrl: string; token: string; fetch?: Fetch | undefined }): Connection {
  // Bound: a browser's fetch throws "Illegal invocation" when called off `window`.
  const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
  return { baseUrl: options.baseUrl.replace(/\/+$/, ''), authorization: `Token ${options.token}`, fetch: fetchFn };
}

/** Sends one JSON request; a non-2xx answer becomes a `TilecastApiError`, a `204` is `undefined`. */
export async function requestJson<TResponse>(connection: Connection, method: string, path: string, body?: unknown): Promise<TResponse> {
  const headers: Record<string, string> = { authorization: connection.authorization, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await connection.fetch(`${connection.baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await apiErrorFrom(response, `${method} ${path}`);
  if (response.status === 204) return undefined as TResponse;
  return (await response.json()) as TResponse;
}

/** `/widget/{slug}` with the slug as one path segment, whatever it contains. */
export function resourcePath(kind: 'activity' | 'widget', slug: string): string {
  return `/${kind}/${encodeURIComponent(slug)}`;
}
