/** Header helpers shared by the inbound seam (`http/`) and outbound requests (`webhooks/`). */
import type { HeaderValue } from './types.js';

/** A header's value as one string (repeated values joined with `, `), or undefined when absent. */
export function singleHeader(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
