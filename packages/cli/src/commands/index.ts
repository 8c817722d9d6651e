import type { Command } from '../command.js';
import { quotaSet, subscriptionSet, tokensRotate } from './account-settings.js';
import { accountsCreate, accountsDelete, accountsList } from './accounts.js';
import { activitiesCreate, activitiesDelete } from './activities.js';
import { deliveriesCommand } from './deliveries.js';
import { devicesRegister, devicesRemove } from './devices.js';
import { migrateCommand } from './migrate.js';
import { seedApply } from './seed.js';
import { widgetsCreate, widgetsDelete, widgetsShare, widgetsUnshare } from './widgets.js';

/** Every command, in the order `tilecast --help` lists them. */
export const COMMANDS: readonly Command[] = [
  accountsCreate,
  accountsList,
  accountsDelete,
  tokensRotate,
  subscriptionSet,
  quotaSet,
  activitiesCreate,
  activitiesDelete,
  widgetsCreate,
  widgetsDelete,
  widgetsShare,
  widgetsUnshare,
  devicesRegister,
  devicesRemove,
  deliveriesCommand,
  seedApply,
  migrateCommand,
];
