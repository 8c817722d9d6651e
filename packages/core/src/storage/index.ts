export type { Storage } from './storage.js';
export type * from './records.js';
