/** `@tilecast/cli/text`: the line breaking every help text of a deployment shares. */
import { describe, expect, it } from 'vitest';
import { wrap } from '../src/text.js';

describe('wrap', () => {
  it('fills each line up to the width, breaking at spaces', () => {
    expect(wrap('aa bb cc dd', 5)).toEqual(['aa bb', 'cc dd']);
    expect(wrap('aa bb cc dd', 4)).toEqual(['aa', 'bb', 'cc', 'dd']);
    expect(wrap('aa bb cc dd', 11)).toEqual(['aa bb cc dd']);
  });

  it('keeps a word longer than the width whole, on a line of its own', () => {
    expect(wrap('a postgres://user:password@host/db b', 10)).toEqual(['a', 'postgres://user:password@host/db', 'b']);
  });

  it('gives no line for empty text', () => {
    expect(wrap('', 10)).toEqual([]);
  });
});
