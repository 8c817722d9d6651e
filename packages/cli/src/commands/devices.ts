import { defineCommand } from '../command.js';
import { failure } from '../errors.js';
import { ACCOUNT, DEVICE, shownOnce } from './shared.js';

export const devicesRegister = defineCommand({
  words: ['devices', 'register'],
  summary: 'register a device of an account and print its device token (once)',
  description:
    'Registers a device (a phone of the account) and prints its device token, which the app sends as `Authorization: Device <token>`. It is stored hashed: this is the only time it is shown. An existing device id (of any account) is never changed: the command fails instead (`devices remove` it first for a new token).',
  arguments: [ACCOUNT, DEVICE],
  options: {},
  examples: ['devices register acme acme-phone'],
  async run({ args }, database) {
    const registered = await (await database.management()).registerDeviceIfAbsent({ id: args.device!, account: args.account! });
    if (registered === null) throw failure(`device "${args.device}" already exists (left as it is)`);
    return {
      json: { id: registered.id, account: args.account, token: registered.token },
      text: `Registered device ${registered.id} of ${args.account}.\n${shownOnce('Device token', registered.token)}`,
    };
  },
});

export const devicesRemove = defineCommand({
  words: ['devices', 'remove'],
  summary: 'remove a device, its shares and its APNs tokens',
  arguments: [DEVICE],
  options: {},
  examples: ['devices remove acme-phone'],
  async run({ args }, database) {
    if (!(await (await database.management()).deleteDevice(args.device!))) throw failure(`no device "${args.device}"`);
    return { json: { id: args.device, deleted: true }, text: `Removed device ${args.device}, the shares naming it and its APNs tokens.` };
  },
});
