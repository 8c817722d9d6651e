import { describe, expect, it } from 'vitest';
import { SURELY_FITS_BODY_BYTES, WIDGET_CONTENT_MAX_BYTES } from '../../src/services/widgets.js';

/** Every JSON number literal of at most `maxLength` characters with an exponent, plus plain ones. */
function* numberLiterals(): Generator<string> {
  const mantissas = ['0', '1', '9', '-1', '-9', '1.5', '12', '-12', '99'];
  for (const mantissa of mantissas) {
    for (const e of ['e', 'E', 'e+', 'e-', 'E-']) for (let exponent = 0; exponent <= 330; exponent++) yield `${mantissa}${e}${exponent}`;
    yield mantissa;
  }
  for (let digits = 1; digits <= 25; digits++) yield `0.${'0'.repeat(digits)}1`;
}

describe('widget content size shortcut', () => {
  it('no JSON number serialises to more than 21/4 of its literal, so a body of SURELY_FITS_BODY_BYTES cannot exceed the limit', () => {
    let worst = 0;
    for (const literal of numberLiterals()) {
      const value = JSON.parse(literal) as number;
      if (!Number.isFinite(value)) continue; // refused by every schema ("Numbers must be finite")
      worst = Math.max(worst, JSON.stringify(value).length / literal.length);
    }
    expect(worst).toBe(21 / 4); // `1e20` → 100000000000000000000
    expect(Math.floor(SURELY_FITS_BODY_BYTES * worst)).toBeLessThanOrEqual(WIDGET_CONTENT_MAX_BYTES);
    expect(Math.floor((SURELY_FITS_BODY_BYTES + 1) * worst)).toBeGreaterThan(WIDGET_CONTENT_MAX_BYTES);
  });
});
