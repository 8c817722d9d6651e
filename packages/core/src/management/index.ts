export { type ArgumentProblem, InvalidArgumentError, OwnDeviceShareError, UnknownRecordError, type RecordKind } from './arguments.js';
export { createManagementApi, DEFAULT_ACTIVITY_QUOTA, MAX_ACCOUNT_PAGE } from './management-api.js';
export type { AccountInput, AccountPageInput, AccountSummary, ActivityInput, DeviceInput, ManagementApi, WidgetInput } from './management-api.js';
export { loadSeed } from './seed.js';
export type { SeedResult } from './seed.js';
export { DEFAULT_DELIVERY_PAGE, MAX_DELIVERY_PAGE } from './deliveries.js';
export type { DeadLetterSummary, DeliveryListInput, DeliverySummary } from './deliveries.js';
