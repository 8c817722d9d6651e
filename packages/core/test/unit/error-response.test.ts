import { describe, expect, it } from 'vitest';
import type { ServiceError } from '../../src/errors.js';
import { errorToResult, internalErrorResult } from '../../src/http/error-response.js';

describe('errorToResult: the one status table', () => {
  it.each<[ServiceError, number, unknown, Record<string, string>?]>([
    [{ kind: 'unauthorized' }, 401, 'Could not validate credentials', { 'www-authenticate': 'Token' }],
    [{ kind: 'unauthorized', scheme: 'Device' }, 401, 'Could not validate credentials', { 'www-authenticate': 'Device' }],
    [{ kind: 'subscription_required' }, 402, 'No active subscription was found'],
    [{ kind: 'activity_not_found' }, 404, 'Activity not found'],
    [{ kind: 'widget_not_found' }, 404, 'Widget not found'],
    [{ kind: 'template_mismatch' }, 400, 'Template mismatch'],
    [{ kind: 'too_many_ongoing_activities' }, 422, 'Too many ongoing activities'],
    [{ kind: 'invalid_widget_content' }, 422, 'Invalid widget content'],
    [{ kind: 'payload_too_large' }, 413, 'Request body too large'],
    [{ kind: 'unsupported_media_type' }, 415, 'Unsupported Media Type'],
    [{ kind: 'too_many_event_streams' }, 429, 'Too many event streams'],
    [{ kind: 'too_many_presses' }, 429, 'Too many presses'],
    [{ kind: 'invalid_subject_filter', value: 'lights' }, 422, 'Invalid subject filter: lights'],
    [{ kind: 'route_not_found' }, 404, 'Not Found'],
    [{ kind: 'method_not_allowed', allow: ['PATCH', 'GET'] }, 405, 'Method Not Allowed', { allow: 'PATCH, GET' }],
  ])('%j → %i %j', (error, status, detail, headers) => {
    const result = errorToResult(error);
    expect(result).toMatchObject({ kind: 'json', status, body: { detail } });
    if (headers) expect((result as { headers?: Record<string, string> }).headers).toMatchObject(headers);
  });

  it('field errors are an array detail', () => {
    const errors = [{ loc: ['body', 'state'], msg: 'Field required', type: 'missing' }];
    expect(errorToResult({ kind: 'validation', errors })).toEqual({ kind: 'json', status: 422, body: { detail: errors } });
  });

  it('an unexpected failure is a plain 500', () => {
    expect(internalErrorResult()).toEqual({ kind: 'json', status: 500, body: { detail: 'Internal Server Error' } });
  });
});
