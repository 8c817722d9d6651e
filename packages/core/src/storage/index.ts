export type { Storage } from './storage.js';
export type * from './records.js';
export type { PressTarget } from './press-target.js';
