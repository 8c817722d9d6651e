import { widgetTemplateNames } from '@tilecast/core/schemas';
import { defineCommand } from '../command.js';
import { failure } from '../errors.js';
import { ACCOUNT, DEVICE, SLUG, wholeNumber } from './shared.js';

const PRIVACY = ['visible', 'hidden_when_locked'] as const;

export const widgetsCreate = defineCommand({
  words: ['widgets', 'create'],
  summary: 'create a widget of an account',
  description:
    'Creates a home-screen widget (publishers set its content with `PATCH /widget/<slug>`). An existing widget is never changed: the command fails instead.',
  arguments: [ACCOUNT, SLUG],
  options: {
    template: { value: '<name>', help: `its template: ${widgetTemplateNames.join(', ')}`, choices: widgetTemplateNames, required: true },
    'stale-after': { value: '<seconds>', help: 'content older than this is shown as stale, 60-604800; default never' },
    privacy: { value: '<privacy>', help: 'visible or hidden_when_locked; default visible', choices: PRIVACY },
  },
  examples: [
    'widgets create acme lights --template switchboard',
    'widgets create acme boiler --template gauge --stale-after 3600 --privacy hidden_when_locked',
  ],
  async run({ args, options }, database) {
    const template = options.template as (typeof widgetTemplateNames)[number];
    const staleAfter = options['stale-after'] === undefined ? null : wholeNumber(options['stale-after'], '--stale-after');
    const privacy = (options.privacy ?? 'visible') as (typeof PRIVACY)[number];
    const created = await (await database.management()).createWidgetIfAbsent({ account: args.account!, slug: args.slug!, template, staleAfter, privacy });
    if (!created) throw failure(`account "${args.account}" already has a widget "${args.slug}" (left as it is)`);
    return {
      json: { account: args.account, slug: args.slug, template, stale_after: staleAfter, privacy },
      text: `Created widget ${args.account}/${args.slug} (template ${template}, stale after ${staleAfter === null ? 'never' : `${staleAfter} s`}, ${privacy}).`,
    };
  },
});

export const widgetsDelete = defineCommand({
  words: ['widgets', 'delete'],
  summary: 'delete a widget of an account, with its shares',
  arguments: [ACCOUNT, SLUG],
  options: {},
  examples: ['widgets delete acme lights'],
  async run({ args }, database) {
    if (!(await (await database.management()).deleteWidget(args.account!, args.slug!))) throw failure(`no widget "${args.account}/${args.slug}"`);
    return { json: { account: args.account, slug: args.slug, deleted: true }, text: `Deleted widget ${args.account}/${args.slug} and its shares.` };
  },
});

export const widgetsShare = defineCommand({
  words: ['widgets', 'share'],
  summary: "show a widget on another account's device",
  description: 'Shares a widget with a device of another account: the device shows it and may press its tiles. Sharing again changes nothing.',
  arguments: [ACCOUNT, SLUG, DEVICE],
  options: {},
  examples: ['widgets share acme lights guest-phone'],
  async run({ args }, database) {
    await (await database.management()).shareWidget(args.account!, args.slug!, args.device!);
    return {
      json: { account: args.account, slug: args.slug, device: args.device, shared: true },
      text: `Shared widget ${args.account}/${args.slug} with device ${args.device}.`,
    };
  },
});

export const widgetsUnshare = defineCommand({
  words: ['widgets', 'unshare'],
  summary: 'stop showing a widget on a device it was shared with',
  arguments: [ACCOUNT, SLUG, DEVICE],
  options: {},
  examples: ['widgets unshare acme lights guest-phone'],
  async run({ args }, database) {
    if (!(await (await database.management()).unshareWidget(args.account!, args.slug!, args.device!))) {
      throw failure(`widget "${args.account}/${args.slug}" is not shared with device "${args.device}"`);
    }
    return {
      json: { account: args.account, slug: args.slug, device: args.device, shared: false },
      text: `Widget ${args.account}/${args.slug} is no longer shared with device ${args.device}.`,
    };
  },
});
