import type { ServiceError } from '../errors.js';
import type { CoreRequest, CoreResult } from './types.js';

export type RouteParams = Record<string, string>;
export type RouteHandler<C> = (context: C, request: CoreRequest, params: RouteParams) => Promise<CoreResult>;

export interface Route<C> {
  method: string;
  /** Path pattern with `:name` segments, e.g. `/activity/:slug`. */
  pattern: string;
  handler: RouteHandler<C>;
}

export type RouteMatch<C> = { handler: RouteHandler<C>; params: RouteParams } | { error: ServiceError };

interface CompiledRoute<C> extends Route<C> {
  segments: string[];
}

/**
 * A tiny exact-segment router: no regexes, no wildcards, so matching stays cheap and
 * predictable. Routes are grouped by their first segment (never a parameter here), so a
 * request is only matched against the few routes that can fit.
 */
export function createRouter<C>(routes: Route<C>[]): (request: CoreRequest) => RouteMatch<C> {
  const byFirst = new Map<string, CompiledRoute<C>[]>();
  for (const route of routes) {
    const segments = split(route.pattern);
    if (segments[0]!.startsWith(':')) throw new Error(`route ${route.pattern}: the first segment must be fixed`);
    byFirst.set(segments[0]!, [...(byFirst.get(segments[0]!) ?? []), { ...route, segments }]);
  }
  // No array is made per request beyond the path's segments: `allow` only on a 405.
  return (request) => {
    const segments = split(request.path);
    let allow: string[] | undefined;
    for (const route of byFirst.get(segments[0]!) ?? NO_ROUTES) {
      const params = matchSegments(route.segments, segments);
      if (params === null) continue;
      if (route.method === request.method) return { handler: route.handler, params };
      (allow ??= []).push(route.method);
    }
    return allow !== undefined ? { error: { kind: 'method_not_allowed', allow } } : { error: { kind: 'route_not_found' } };
  };
}

const NO_ROUTES: readonly never[] = [];

/** The segments after the leading `/` (one split; `/` itself is one empty segment). */
function split(path: string): string[] {
  const segments = path.split('/');
  segments.shift();
  return segments;
}

function matchSegments(pattern: string[], actual: string[]): RouteParams | null {
  if (pattern.length !== actual.length) return null;
  const params: RouteParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const segment = actual[i]!;
    if (expected.startsWith(':')) {
      if (segment === '') return null;
      params[expected.slice(1)] = decodeSegment(segment);
    } else if (expected !== segment) {
      return null;
    }
  }
  return params;
}

/** Percent-decodes a path segment; a malformed escape stays as written (it then matches no slug). */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
