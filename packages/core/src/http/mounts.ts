/**
 * Several handlers served by path prefix, and the request target split into path and query:
 * what every adapter's routing to Tilecast needs, decided once here.
 */

/** What a mounted handler may say about its paths (a handler without `owns` claims every path). */
export interface MountableHandler {
  owns?(path: string): boolean;
}

export interface MountMatch<H> {
  handler: H;
  /** The path relative to the mount, starting with `/`. */
  path: string;
  /** The mount's prefix: `''` for the root, else `/a/b` (no trailing slash). */
  prefix: string;
}

/** A mount prefix in its one form: `''` for the root, else a leading and no trailing slash (`api/` → `/api`). */
export function mountPrefix(path: string | undefined): string {
  if (path === undefined || path === '' || path === '/') return '';
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.endsWith('/') ? withSlash.slice(0, -1) : withSlash;
}

/**
 * The handler a request path goes to: that of the longest prefix the path is under whose
 * handler owns the rest of the path, else `undefined` (the request is the host's).
 * `basePath` is put before every prefix.
 */
export function createMountTable<H extends MountableHandler>(handlers: Record<string, H>, basePath?: string): (path: string) => MountMatch<H> | undefined {
  const base = mountPrefix(basePath);
  const mounts = Object.entries(handlers)
    .map(([path, handler]) => ({ prefix: base + mountPrefix(path), handler }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  // A loop, not `find` with a closure: this runs for every request.
  return (path) => {
    for (const { prefix, handler } of mounts) {
      if (!isUnder(path, prefix)) continue;
      const relative = path.slice(prefix.length) || '/';
      if (handler.owns === undefined || handler.owns(relative)) return { handler, path: relative, prefix };
    }
    return undefined;
  };
}

/** True when `path` is `prefix` itself or below it (every path is under the root, `''`). */
function isUnder(path: string, prefix: string): boolean {
  return prefix === '' || (path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === SLASH));
}

const SLASH = 0x2f;

/** Path and query of a request target in origin form (`/a?b`) or absolute form (`http://h/a?b`). */
export function splitTarget(target: string): { path: string; query: string } {
  let origin = target;
  if (!origin.startsWith('/')) {
    try {
      const parsed = new URL(origin);
      origin = parsed.pathname + parsed.search;
    } catch {
      origin = '/';
    }
  }
  const mark = origin.indexOf('?');
  return mark === -1 ? { path: origin, query: '' } : { path: origin.slice(0, mark), query: origin.slice(mark + 1) };
}
