/**
 * The invariants every fuzzed answer must hold (docs/contract/limits-and-errors.md#no-500-no-stall, docs/contract/limits-and-errors.md#field-error-array, docs/contract/limits-and-errors.md#field-error-cap): no 5xx; an
 * error is JSON, `{"detail": string}` or `{"detail": [{loc, msg, type}, ...]}` with only
 * those keys and at most 64 items; an event stream is a `200` `text/event-stream`; and
 * no success for two `Authorization` headers or a press with a bad `request_id`.
 */
import type { RawReply, RawRequest } from './raw-http.js';

export const MAX_FIELD_ERRORS = 64;

/** The problems with `reply` (empty when it is fine). */
export function problems(request: RawRequest, reply: RawReply): string[] {
  const found: string[] = [];
  if (reply.status >= 500) found.push(`status ${reply.status}`);
  const type = reply.headers['content-type'] ?? [];
  if (reply.stream) {
    if (reply.status !== 200) found.push(`event stream with status ${reply.status}`);
    return found;
  }
  if (reply.status >= 200 && reply.status < 300) found.push(...acceptedWrongly(request));
  if (reply.status < 400) return found;
  if (type.length !== 1 || !/^application\/json(;|$)/i.test(type[0]!)) found.push(`error content-type ${JSON.stringify(type)}`);
  // A HEAD answer has no body to check.
  if (request.method === 'HEAD') return found;
  let body: unknown;
  try {
    body = JSON.parse(reply.body.toString('utf8'));
  } catch {
    found.push('error body is not JSON');
    return found;
  }
  found.push(...errorShapeProblems(body));
  return found;
}

/**
 * Two refusals that docs/contract/publisher-api.md#authorization-header-repeated and docs/contract/device-api.md#press-request-id
 * make certain whatever else is in the request: two or more `Authorization` headers are a 401 (the OpenAPI document needs
 * none), and a press whose `request_id` is outside `A-Z a-z 0-9 _ -` is a 422.
 */
function acceptedWrongly(request: RawRequest): string[] {
  const found: string[] = [];
  const authorizations = request.headers.filter(([name]) => name.toLowerCase() === 'authorization').length;
  if (authorizations >= 2 && !request.target.includes('openapi.json')) found.push(`accepted with ${authorizations} Authorization headers`);
  if (request.method === 'POST' && request.target.includes('/device/presses') && request.body !== undefined) {
    const requestId = parsedField(request.body, 'request_id');
    if (typeof requestId === 'string' && !/^[A-Za-z0-9_-]+$/.test(requestId))
      found.push(`press accepted with request_id ${JSON.stringify(requestId.slice(0, 40))}`);
  }
  return found;
}

function parsedField(body: Uint8Array, key: string): unknown {
  try {
    const value: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    return isPlainObject(value) ? value[key] : undefined;
  } catch {
    return undefined;
  }
}

export function errorShapeProblems(body: unknown): string[] {
  if (!isPlainObject(body)) return ['error body is not an object'];
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'detail') return [`error body keys ${JSON.stringify(keys)}`];
  const detail = body.detail;
  if (typeof detail === 'string') return detail === '' ? ['empty detail'] : [];
  if (!Array.isArray(detail)) return [`detail is ${typeof detail}`];
  const found: string[] = [];
  if (detail.length === 0) found.push('empty field-error array');
  if (detail.length > MAX_FIELD_ERRORS) found.push(`${detail.length} field errors (at most ${MAX_FIELD_ERRORS})`);
  detail.forEach((item, i) => {
    if (!isPlainObject(item)) return void found.push(`detail[${i}] is not an object`);
    const itemKeys = Object.keys(item).sort();
    if (itemKeys.join() !== 'loc,msg,type') found.push(`detail[${i}] keys ${JSON.stringify(itemKeys)}`);
    if (!Array.isArray(item.loc) || !item.loc.every((part) => typeof part === 'string' || Number.isInteger(part)))
      found.push(`detail[${i}].loc ${JSON.stringify(item.loc)}`);
    if (typeof item.msg !== 'string') found.push(`detail[${i}].msg is ${typeof item.msg}`);
    if (typeof item.type !== 'string') found.push(`detail[${i}].type is ${typeof item.type}`);
  });
  // One line per distinct problem is enough to read.
  return [...new Set(found.map((p) => p.replace(/detail\[\d+\]/, 'detail[i]')))];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const show = (bytes: Uint8Array | string, max: number): string => {
  const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('latin1');
  const shown = JSON.stringify(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${shown}… (${text.length} chars)` : shown;
};

/** A short description of a request, for failure messages (long values cut). */
export function describeRequest(request: RawRequest): string {
  const lines = [`${request.method} ${show(request.target, 160)}`];
  for (const [name, value] of request.headers) lines.push(`  ${name}: ${show(value, 120)}`);
  if (request.body !== undefined) lines.push(`  body${request.chunked ? ' (chunked)' : ''}: ${show(request.body, 300)}`);
  return lines.join('\n');
}

export function describeReply(reply: RawReply): string {
  return `${reply.status} ${JSON.stringify(reply.headers['content-type'] ?? [])} ${show(reply.body, 300)}`;
}

/**
 * Which item of issue 20 a failure most likely belongs to, for the reader of a failure
 * message (a guess from the input; the assertion itself does not depend on it).
 */
export function likelyItem(request: RawRequest, reply: RawReply | null, found: string[]): string | null {
  const sent = Buffer.concat([
    Buffer.from(`${request.method} ${request.target}`, 'latin1'),
    ...request.headers.map(([, v]) => Buffer.from(typeof v === 'string' ? Buffer.from(v, 'latin1') : v)),
  ]).toString('latin1');
  if (reply === null) return request.method === 'CONNECT' ? "issue 20 item 11 (Node's own refusals: CONNECT closes the socket)" : null;
  const nodeOwn = (reply.headers['content-type'] ?? []).length === 0 && reply.body.byteLength === 0;
  if (nodeOwn && [400, 417, 431].includes(reply.status)) return "issue 20 item 11 (Node's own refusals have empty bodies)";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for a NUL is the point
  if (reply.status >= 500 && /%00|%ED%[AB][0-9A-F]|\u0000/i.test(sent)) return 'issue 20 item 1 (a NUL or lone surrogate reaches the store)';
  if (found.some((problem) => problem.includes('field errors (at most'))) return 'issue 20 item 9 (field-error cap)';
  if (found.some((problem) => problem.includes('Authorization headers'))) return 'issue 20 item 8 (two Authorization headers)';
  if (found.some((problem) => problem.includes('request_id'))) return 'issue 20 item 4 (request_id characters)';
  return null;
}
