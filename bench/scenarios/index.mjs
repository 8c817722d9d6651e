import { p1, p2, p3 } from './publish.mjs';
import { s1, s2, s4 } from './streams.mjs';

/** Every scenario, in the order `npm run bench` runs them. */
export const scenarios = [p1, p2, p3, s1, s2, s4];
