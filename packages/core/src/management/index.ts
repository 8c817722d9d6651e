export { InvalidArgumentError } from './arguments.js';
export { createManagementApi, DEFAULT_ACTIVITY_QUOTA } from './management-api.js';
export type { AccountInput, ActivityInput, DeviceInput, ManagementApi, WidgetInput } from './management-api.js';
export { loadSeed, SeedFile } from './seed.js';
export type { SeedResult } from './seed.js';
