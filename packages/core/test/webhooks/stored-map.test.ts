import { describe, expect, it } from 'vitest';
import { entryFor, readStoredMap } from '../../src/webhooks/stored-map.js';

const entry = (url: string) => ({ url, method: 'POST', headers: {}, body: null, secret: 'whsec_test' });
const broken = { url: 'ftp://example.com/hook', method: 'POST', headers: {}, body: null, secret: null };

describe('entryFor: the stored entry an event goes to', () => {
  it("the action's own entry beats *", () => {
    const raw = { go: entry('https://example.com/go'), '*': entry('https://example.com/any') };
    expect(entryFor(raw, 'go')).toEqual({ key: 'go', entry: entry('https://example.com/go') });
    expect(entryFor(raw, 'stop')).toEqual({ key: '*', entry: entry('https://example.com/any') });
  });

  it('no matching entry: none', () => {
    expect(entryFor({ go: entry('https://example.com/go') }, 'stop')).toBeNull();
    expect(entryFor({}, 'go')).toBeNull();
  });

  it('an entry that is not one is skipped, as readStoredMap skips it', () => {
    const raw = { go: broken, '*': entry('https://example.com/any') };
    expect(Object.keys(readStoredMap(raw))).toEqual(['*']);
    expect(entryFor(raw, 'go')).toEqual({ key: '*', entry: entry('https://example.com/any') });
    expect(entryFor({ go: broken }, 'go')).toBeNull();
    expect(entryFor({ '*': 'not an object' }, 'go')).toBeNull();
  });

  it('fills in what the stored entry leaves out, as the PUT did', () => {
    expect(entryFor({ go: { url: 'https://example.com/go', secret: null } }, 'go')).toEqual({
      key: 'go',
      entry: { url: 'https://example.com/go', method: 'POST', headers: {}, body: null, secret: null },
    });
  });

  it('only own keys: an action named after an Object.prototype member finds nothing inherited', () => {
    for (const action of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(entryFor({}, action)).toBeNull();
  });
});
