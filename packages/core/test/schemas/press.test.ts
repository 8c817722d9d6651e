import { describe, expect, it } from 'vitest';
import { pressReport } from '../../src/schemas/index.js';
import { expectOnlyError, outputOf } from './helpers.js';

const base = { owner: 'acme', slug: 'lights', action: 'bell' };

describe('press report request_id (docs/contract/device-api.md#press-request-id)', () => {
  it.each([
    ['a ULID', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    ['a UUID', '3f1c9a2e-7b44-4e0b-9a51-2d9c8f1e6a10'],
    ['one character', 'a'],
    ['underscores and dashes', '_-_'],
    ['128 characters', 'x'.repeat(128)],
  ])('accepts %s', (_, requestId) => {
    expect(outputOf(pressReport, { ...base, request_id: requestId })).toMatchObject({ request_id: requestId });
  });

  it.each([
    ['a path traversal', '../admin?x=1&', 'string_pattern_mismatch'],
    ['a dot', 'a.b', 'string_pattern_mismatch'],
    ['a space', 'a b', 'string_pattern_mismatch'],
    ['a slash', 'a/b', 'string_pattern_mismatch'],
    ['a host-shaped value', 'evil.example#', 'string_pattern_mismatch'],
    ['credentials', 'u:p@h', 'string_pattern_mismatch'],
    ['a percent escape', '%2e%2e', 'string_pattern_mismatch'],
    ['a non-ASCII letter', 'café', 'string_pattern_mismatch'],
    ['a trailing newline', 'abc\n', 'string_pattern_mismatch'],
    ['129 characters', 'x'.repeat(129), 'string_too_long'],
    ['the empty string', '', 'string_too_short'],
  ])('refuses %s with one field error', (_, requestId, type) => {
    const error = expectOnlyError(pressReport, { ...base, request_id: requestId }, ['request_id'], type);
    expect(JSON.stringify(error)).not.toContain(requestId || '""');
  });

  it('words the pattern error as pydantic does', () => {
    expect(expectOnlyError(pressReport, { ...base, request_id: 'a.b' }, ['request_id'], 'string_pattern_mismatch').msg).toBe(
      "String should match pattern '^[A-Za-z0-9_-]+$'",
    );
  });
});
