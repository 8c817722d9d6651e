export type * from './storage.js';
export type * from './records.js';
export type { PressTarget } from './press-target.js';
