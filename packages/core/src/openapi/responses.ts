/**
 * The building blocks of operations: parameters, bodies and the refusals, each with the
 * contract's status and detail string (docs/contract/limits-and-errors.md#errors; the same strings `http/error-response.ts`
 * writes; `test/openapi` checks them against it).
 */
import type { ComponentSchemas } from './convert.js';

export type Responses = Record<string, object>;

export function pathParameter(name: string, title: string, description: string): object {
  return { name, in: 'path', required: true, description, schema: { type: 'string', title } };
}

export function jsonBody(schema: object): object {
  return { required: true, content: { 'application/json': { schema } } };
}

export function jsonResponse(description: string, schema: object, example?: object): object {
  const media = example === undefined ? { schema } : { schema, example };
  return { description, content: { 'application/json': media } };
}

/** A `text/event-stream` answer: a string on the wire, its events described in words. */
export function eventStreamResponse(description: string, example: string): object {
  return {
    description,
    headers: {
      'Cache-Control': { description: '`no-cache, no-transform`', schema: { type: 'string' } },
      'X-Accel-Buffering': { description: '`no`: proxies must not buffer the stream.', schema: { type: 'string' } },
    },
    content: { 'text/event-stream': { schema: { type: 'string' }, example } },
  };
}

/** The refusals, by status, for an operation to pick from. */
export function refusals(components: ComponentSchemas) {
  const error = components.ref('ErrorResponse', 'output');
  const detail = (description: string, text: string) => jsonResponse(description, error, { detail: text });
  return {
    templateMismatch: { '400': detail('Template mismatch: content.template differs from the template fixed at creation.', 'Template mismatch') },
    unauthorized: {
      '401': {
        ...detail('Authorization header missing, malformed, or token unknown.', 'Could not validate credentials'),
        headers: { 'WWW-Authenticate': { description: '`Token`', schema: { type: 'string' } } },
      },
    },
    deviceUnauthorized: {
      '401': {
        ...detail('Authorization header missing or malformed, or no such device.', 'Could not validate credentials'),
        headers: { 'WWW-Authenticate': { description: '`Device`', schema: { type: 'string' } } },
      },
    },
    subscription: { '402': detail('The account has no active subscription.', 'No active subscription was found') },
    notFound: (description: string, text: string) => ({ '404': detail(description, text) }),
    tooLarge: {
      '413': {
        ...detail('The request body is over 64 KiB (refused before it is read whole).', 'Request body too large'),
        headers: { Connection: { description: '`close`', schema: { type: 'string' } } },
      },
    },
    mediaType: {
      '415': detail('A Content-Type other than `application/json` (any parameters) or `*/*+json`; no Content-Type is read as JSON.', 'Unsupported Media Type'),
    },
    fieldErrors: (description: string) => ({ '422': jsonResponse(description, components.ref('HTTPValidationError', 'output')) }),
    /** A `422` that is the field-error array or one string detail. */
    fieldErrorsOr: (text: string) => ({
      '422': jsonResponse(`Body validation error (field-error array), or {"detail": "${text}"}.`, {
        anyOf: [components.ref('HTTPValidationError', 'output'), error],
      }),
    }),
    detail: (status: string, description: string, text: string) => ({ [status]: detail(description, text) }),
    unavailable: { '503': detail('The store is unavailable (down, or over one of its deadlines); try again.', 'Service Unavailable') },
  };
}
