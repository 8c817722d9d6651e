import { describe, expect, it } from 'vitest';
import type { TilecastError } from '../../src/errors.js';
import { matchesFilters, parseEventFilters } from '../../src/events/filters.js';
import { startPosition } from '../../src/events/positions.js';
import { pressEventId } from '../../src/presses/event-id.js';

describe('Last-Event-ID', () => {
  it('no header: start at the end (no replay)', () => {
    expect(startPosition(undefined, 42)).toBe(42);
  });
  it('a position this account issued: right after it', () => {
    expect(startPosition('u:5', 42)).toBe(5);
    expect(startPosition('u:42', 42)).toBe(42);
  });
  it.each(['abc', 'u:', 'u:-1', 'u:1e3', 'u:05', '5', `u:${'9'.repeat(10_000)}`, 'u:1\r\n', 'u:1\0', 'u:43', ' u:5'])(
    'unrecognised %j: replay everything',
    (value) => {
      expect(startPosition(value, 42)).toBe(0);
    },
  );
  it('repeated headers are unrecognised', () => {
    expect(startPosition(['u:1', 'u:2'], 42)).toBe(0);
  });
});

describe('event filters', () => {
  const event = { position: 1, id: 'x', subject: 'widget/lights', type: 'widget.action.v1', expiresAt: 0, envelope: {} };
  it('subjects and types are repeatable and combine with AND across kinds, OR within', () => {
    const filters = parseEventFilters(new URLSearchParams('subject=widget/lights&subject=activity/build&types=widget.action.v1'));
    expect(matchesFilters(event, filters)).toBe(true);
    expect(matchesFilters({ ...event, subject: 'widget/other' }, filters)).toBe(false);
    expect(matchesFilters({ ...event, type: 'widget.action.v2' }, filters)).toBe(false);
    expect(matchesFilters(event, parseEventFilters(new URLSearchParams()))).toBe(true);
  });
  it.each(['lights', 'gadget/x', 'widget/', '/x', 'widget/a/b', 'Widget/x', ''])('refuses %j with its value in the detail', (bad) => {
    try {
      parseEventFilters(new URLSearchParams({ subject: bad }));
      expect.unreachable();
    } catch (error) {
      expect((error as TilecastError).error).toEqual({ kind: 'invalid_subject_filter', value: bad });
    }
  });
});

describe('press event ids', () => {
  it('are UUIDv5, stable for one press and distinct across widgets and requests', () => {
    const id = pressEventId('acme', 'lights', 'r1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(pressEventId('acme', 'lights', 'r1')).toBe(id);
    expect(pressEventId('acme', 'lights', 'r2')).not.toBe(id);
    expect(pressEventId('acme', 'panel', 'r1')).not.toBe(id);
    // No ambiguity from separators: ('a/b','c') and ('a','b/c') differ.
    expect(pressEventId('a/b', 'c', 'r')).not.toBe(pressEventId('a', 'b/c', 'r'));
  });
});
