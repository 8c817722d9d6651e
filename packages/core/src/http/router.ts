import type { ServiceError } from '../errors.js';
import { isHoldable } from '../storage/holdable.js';
import type { CoreRequest, CoreResult } from './types.js';

export type RouteParams = Record<string, string>;
export type RouteHandler<C> = (context: C, request: CoreRequest, params: RouteParams) => Promise<CoreResult>;

export interface Route<C> {
  method: string;
  /** Path pattern with `:name` segments, e.g. `/activity/:slug`. */
  pattern: string;
  handler: RouteHandler<C>;
  /**
   * A `GET` route's answer to `HEAD`, where running `handler` would take something that
   * answering a head must not (an event stream's slot, its connection): it checks what
   * `handler` checks and answers the same status and headers. Without it, `HEAD` runs
   * `handler`. Either way the core sends no body (see `headOnly`).
   */
  head?: RouteHandler<C>;
}

export type RouteMatch<C> = { handler: RouteHandler<C>; params: RouteParams; pattern: string } | { error: ServiceError };

export interface Router<C> {
  /** The route for a request, or the refusal: `405` (with `Allow`) for a known path, `404` otherwise. */
  match(request: CoreRequest): RouteMatch<C>;
  /** True when some route has this path, whatever its method (what adapters leave to their host otherwise). */
  owns(path: string): boolean;
}

interface CompiledRoute<C> extends Route<C> {
  segments: string[];
  /** Per segment: the parameter's name (without the `:`), or null for fixed text. */
  names: (string | null)[];
}

/**
 * A tiny exact-segment router: no regexes, no wildcards, so matching stays cheap and
 * predictable. Routes are grouped by their first segment (never a parameter here), so a
 * request is only matched against the few routes that can fit.
 */
export function createRouter<C>(routes: Route<C>[]): Router<C> {
  const byFirst = new Map<string, CompiledRoute<C>[]>();
  for (const route of withHeadRoutes(routes)) {
    const segments = split(route.pattern);
    if (segments[0]!.startsWith(':')) throw new Error(`route ${route.pattern}: the first segment must be fixed`);
    // Names sliced once here: a name sliced per request is a new string to hash as a key.
    const names = segments.map((segment) => (segment.startsWith(':') ? segment.slice(1) : null));
    byFirst.set(segments[0]!, [...(byFirst.get(segments[0]!) ?? []), { ...route, segments, names }]);
  }
  // An adapter asks `owns` and then `match` about the same path (the very same string):
  // its segments are split once for both.
  let lastPath: string | undefined;
  let lastSegments: string[] = [];
  const segmentsOf = (path: string): string[] => {
    if (path !== lastPath) {
      lastSegments = split(path);
      lastPath = path;
    }
    return lastSegments;
  };
  // No array is made per request beyond the path's segments: `allow` only on a 405.
  const match = (request: CoreRequest): RouteMatch<C> => {
    const segments = segmentsOf(request.path);
    let allow: string[] | undefined;
    for (const route of byFirst.get(segments[0]!) ?? NO_ROUTES) {
      const params = matchSegments(route, segments);
      if (params === null) continue;
      if (route.method === request.method) return { handler: route.handler, params, pattern: route.pattern };
      (allow ??= []).push(route.method);
    }
    // Both before authentication (docs/contract/limits-and-errors.md#error-route-not-found,
    // docs/contract/limits-and-errors.md#error-method-not-allowed-detail).
    return allow !== undefined ? { error: { kind: 'method_not_allowed', allow } } : { error: { kind: 'route_not_found' } };
  };
  const owns = (path: string): boolean => {
    const segments = segmentsOf(path);
    for (const route of byFirst.get(segments[0]!) ?? NO_ROUTES) if (fits(route, segments)) return true;
    return false;
  };
  return { match, owns };
}

const NO_ROUTES: readonly never[] = [];

/**
 * The routes, each `GET` followed by its `HEAD` (unless one is declared): HEAD is answered
 * wherever GET is (RFC 9110 §9.3.2, docs/contract/limits-and-errors.md#head-on-get-routes), and so listed in `Allow`.
 */
function withHeadRoutes<C>(routes: Route<C>[]): Route<C>[] {
  const declared = new Set(routes.filter((route) => route.method === 'HEAD').map((route) => route.pattern));
  return routes.flatMap((route) =>
    route.method === 'GET' && !declared.has(route.pattern)
      ? [route, { method: 'HEAD', pattern: route.pattern, handler: route.head ?? route.handler }]
      : [route],
  );
}

/**
 * The segments after the first `/` (`/` itself is one empty segment): `path.split('/')`
 * without its first element. A loop, because split goes through V8's runtime (C++) for a
 * string it has not seen before, and every request's path is one.
 */
function split(path: string): string[] {
  const segments: string[] = [];
  let start = -1;
  for (let i = 0; i < path.length; i++) {
    if (path.charCodeAt(i) !== SLASH) continue;
    if (start !== -1) segments.push(path.slice(start, i));
    start = i + 1;
  }
  if (start !== -1) segments.push(path.slice(start));
  return segments;
}

const SLASH = 0x2f;

/** `matchSegments` without decoding: the same answer (a decoded segment never fails), nothing allocated. */
function fits<C>({ segments: pattern, names }: CompiledRoute<C>, actual: string[]): boolean {
  if (pattern.length !== actual.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    if (names[i] !== null ? actual[i] === '' : pattern[i] !== actual[i]) return false;
  }
  return true;
}

function matchSegments<C>({ segments: pattern, names }: CompiledRoute<C>, actual: string[]): RouteParams | null {
  if (pattern.length !== actual.length) return null;
  const params: RouteParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const name = names[i] ?? null;
    const segment = actual[i]!;
    if (name !== null) {
      if (segment === '') return null;
      params[name] = decodeSegment(segment);
    } else if (pattern[i] !== segment) {
      return null;
    }
  }
  return params;
}

/**
 * Percent-decodes a path segment. A value no store can hold (a NUL, a lone surrogate) never
 * becomes a parameter: the segment then stays as written, like a malformed escape, and
 * names nothing (a `%` is never part of an id), so the route answers its own `404` after
 * its usual checks, the same on every storage (docs/contract/limits-and-errors.md#unholdable-values).
 */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return isHoldable(segment) ? segment : UNHOLDABLE;
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = segment;
  }
  if (isHoldable(decoded)) return decoded;
  return isHoldable(segment) ? segment : UNHOLDABLE;
}

/** Stands for a segment that is not even holdable as written (only an embedder's adapter can pass one). */
const UNHOLDABLE = '%';
