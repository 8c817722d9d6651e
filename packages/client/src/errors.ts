/** One item of a `{detail: [...]}` validation body: where, what, and the error's type. */
export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * Every refusal of the service, whatever the endpoint: branch on `status`, and on
 * `detail` being a string (`'Widget not found'`) or a field-error array (a `422` for a
 * malformed body).
 */
export class TilecastApiError extends Error {
  override readonly name = 'TilecastApiError';

  constructor(
    readonly status: number,
    readonly detail: string | FieldError[],
    /** `METHOD /path` of the refused request, for logs. */
    readonly request: string,
  ) {
    super(`${request} → ${status}: ${describe(detail)}`);
  }

  /** The field errors of a validation `422`, or an empty array for a string detail. */
  get fieldErrors(): FieldError[] {
    return typeof this.detail === 'string' ? [] : this.detail;
  }
}

export function isTilecastApiError(value: unknown): value is TilecastApiError {
  return value instanceof TilecastApiError;
}

function describe(detail: string | FieldError[]): string {
  if (typeof detail === 'string') return detail;
  return detail.map((error) => `${error.loc.join('.')}: ${error.msg}`).join('; ');
}

/** Builds the error from a refused response; a body that is not the usual JSON still yields a string detail. */
export async function apiErrorFrom(response: Response, request: string): Promise<TilecastApiError> {
  const text = await response.text().catch(() => '');
  return new TilecastApiError(response.status, detailOf(text) ?? (text || response.statusText || 'Request failed'), request);
}

function detailOf(text: string): string | FieldError[] | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || !('detail' in body)) return undefined;
  const { detail } = body;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail) && detail.every(isFieldError)) return detail;
  return undefined;
}

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  return Array.isArray(item.loc) && typeof item.msg === 'string' && typeof item.type === 'string';
}
