/** Validation schemas of the publisher API, their field errors and their echo shapes. */
export * from './activity.js';
export * from './blocks.js';
export { discriminated, discriminatedInfo, tagged } from './discriminated.js';
export type { DiscriminatedInfo, TaggedOptions } from './discriminated.js';
export * from './echo.js';
export * from './enums.js';
export * from './envelopes.js';
export { toFieldErrors } from './field-errors.js';
export { isPlainObject } from './primitives.js';
export { validate } from './validate.js';
export type { ValidationResult } from './validate.js';
export * from './widgets/index.js';
export * from './press.js';
export * from './device-sync.js';
