import { describe, expect, it } from 'vitest';
import { tokenTakes } from '../../src/storage/token-takes.js';

describe('tokenTakes', () => {
  it('one entry per key, in first-mention order; a key named again gives another token under its last rule', () => {
    const a1 = { key: 'a', capacity: 5, refillMs: 1_000 };
    const b = { key: 'b', capacity: 8, refillMs: 1_000 };
    const a2 = { key: 'a', capacity: 2, refillMs: 60_000 };
    expect(tokenTakes([a1, b, a2])).toEqual([
      { rule: a2, take: 2 },
      { rule: b, take: 1 },
    ]);
    expect(tokenTakes([])).toEqual([]);
  });
});
