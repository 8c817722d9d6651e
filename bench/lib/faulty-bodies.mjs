// The bodies of the cost check's E1 (bench/tools/cost-check.mjs): bodies full of faults,
// each 48+ KB, and a valid webhook map of exactly the same size, for
// docs/contract/limits-and-errors.md#field-error-cost. The paths are the bench server's
// (servers/tilecast.mjs: widget `lights`, progress activity `order`). Every body stays
// under the 64 KiB limit (docs/contract/limits-and-errors.md#body-size-limit): over HTTP a
// larger one is a 413 before it is parsed, so the list has 6,000 bad items, not the 7,000
// of the in-process test this replaces, whose body reader did not apply the limit.

/** `count` unknown members, `"k0":0,"k1":0,…`, to splice into a JSON object. */
export const unknownMembers = (count) => Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',');

const faulty = [
  {
    id: 'map-keys',
    kind: '6,000 unknown keys in a webhook map',
    method: 'PUT',
    path: '/widget/lights/webhooks',
    body: `{"webhooks":{},${unknownMembers(6000)}}`,
  },
  {
    id: 'activity-keys',
    kind: '6,000 unknown keys in an activity update',
    method: 'PATCH',
    path: '/activity/order',
    body: `{"state":"ONGOING","content":{"template":"progress","progress":{"value":0.5}},${unknownMembers(6000)}}`,
  },
  {
    id: 'list-items',
    kind: '6,000 bad items in a list of at most 4',
    method: 'PATCH',
    path: '/activity/order',
    body: JSON.stringify({
      state: 'ONGOING',
      content: { template: 'progress', progress: { value: 0.5, segments: Array.from({ length: 6000 }, (_, i) => ({ [`x${i % 50}`]: 1 })) } },
    }),
  },
  {
    id: 'headers',
    kind: '6,000 bad webhook headers',
    method: 'PUT',
    path: '/widget/lights/webhooks',
    body: JSON.stringify({
      webhooks: { '*': { url: 'https://hooks.example.com/', headers: Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`h${i}`, 5])) } },
    }),
  },
];

/** The size of every body here, refused or accepted: the largest refused body's (about 59 KB). */
export const FAULTY_BODY_SIZE = Math.max(...faulty.map(({ body }) => Buffer.byteLength(body)));

/**
 * The refused requests by kind, each answered 422 with a capped field-error array. Their
 * bodies differ by a few dozen bytes, so each is padded with spaces to FAULTY_BODY_SIZE:
 * then one valid body is the same size as all four.
 */
export const refusedRequests = faulty.map((request) => ({ ...request, body: padded(request.body, FAULTY_BODY_SIZE) }));

/**
 * The largest kind of valid body the service accepts: a webhook map of nine entries with
 * full header sets and body templates (about 56 KB, thousands of keys, as the refused
 * bodies have), padded with spaces to exactly `size` bytes. Parsing is a cost both pay
 * alike; what is compared is everything the service adds on top.
 */
export function validMapOfSize(size) {
  const webhooks = {};
  for (const [e, key] of ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', '*'].entries()) {
    const headers = {};
    let headerBytes = 0;
    for (let i = 0; headerBytes + 12 <= 1024; i++) {
      headers[`h${e}x${i}`] = 'v';
      headerBytes += `h${e}x${i}v`.length;
    }
    const body = {};
    for (let i = 0; JSON.stringify(body).length + 24 <= 2048; i++) body[`b${e}_${i}`] = '{{action}}';
    webhooks[key] = { url: `https://hooks.example.com/${'p'.repeat(1800)}`, method: 'PUT', headers, body, secret: 's'.repeat(256) };
  }
  return padded(JSON.stringify({ webhooks }), size);
}

/** A JSON object's text with spaces before its closing brace, to exactly `size` bytes. */
function padded(text, size) {
  const bytes = Buffer.byteLength(text);
  if (bytes > size) throw new Error(`a body of ${bytes} bytes cannot be padded to ${size}`);
  return `${text.slice(0, -1)}${' '.repeat(size - bytes)}}`;
}
