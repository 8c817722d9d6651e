import type { ActivityInput } from '@tilecast/core';
import { activityTemplateNames } from '@tilecast/core/schemas';
import { defineCommand } from '../command.js';
import { failure } from '../errors.js';
import { ACCOUNT, SLUG, wholeNumber } from './shared.js';

/** How its updates reach iPhones (docs/contract/broadcast-channels.md#broadcast-activity-delivery). */
const DELIVERIES = ['tokens', 'broadcast'] as const satisfies readonly NonNullable<ActivityInput['delivery']>[];

export const activitiesCreate = defineCommand({
  words: ['activities', 'create'],
  summary: 'create an activity of an account',
  description:
    'Creates an activity (a Live Activity publishers update with `PATCH /activity/<slug>`). An existing activity is never changed: the command fails instead.',
  arguments: [ACCOUNT, SLUG],
  options: {
    template: { value: '<name>', help: `its template: ${activityTemplateNames.join(', ')} `, choices: activityTemplateNames, required: true },
    'dismissal-delay': { value: '<seconds>', help: 'how long an ended activity stays on screen, 0-14400; default 0' },
    delivery: {
      value: '<delivery>',
      help: 'tokens (one push per iPhone) or broadcast (one push per update to a channel, iOS 18 and later); default tokens',
      choices: DELIVERIES,
    },
    'frequent-updates': { help: 'a broadcast activity updated often: APNs keeps no update for offline iPhones' },
  },
  examples: [
    'activities create acme build --template progress',
    'activities create acme deploy --template generic --dismissal-delay 600',
    'activities create acme match --template monitor --delivery broadcast --frequent-updates',
  ],
  async run({ args, options }, database) {
    const template = options.template as (typeof activityTemplateNames)[number];
    const dismissalDelayS = options['dismissal-delay'] === undefined ? 0 : wholeNumber(options['dismissal-delay'], '--dismissal-delay');
    const delivery = (options.delivery ?? 'tokens') as (typeof DELIVERIES)[number];
    const frequentUpdates = options['frequent-updates'] !== undefined;
    const created = await (await database.management()).createActivityIfAbsent({
      account: args.account!,
      slug: args.slug!,
      template,
      dismissalDelayS,
      delivery,
      frequentUpdates,
    });
    if (!created) throw failure(`account "${args.account}" already has an activity "${args.slug}" (left as it is)`);
    const frequent = frequentUpdates ? ', frequent updates' : '';
    return {
      json: { account: args.account, slug: args.slug, template, dismissal_delay_s: dismissalDelayS, delivery, frequent_updates: frequentUpdates },
      text: `Created activity ${args.account}/${args.slug} (template ${template}, dismissal delay ${dismissalDelayS} s, ${delivery} delivery${frequent}).`,
    };
  },
});

export const activitiesDelete = defineCommand({
  words: ['activities', 'delete'],
  summary: 'delete an activity of an account',
  arguments: [ACCOUNT, SLUG],
  options: {},
  examples: ['activities delete acme build'],
  async run({ args }, database) {
    if (!(await (await database.management()).deleteActivity(args.account!, args.slug!))) throw failure(`no activity "${args.account}/${args.slug}"`);
    return { json: { account: args.account, slug: args.slug, deleted: true }, text: `Deleted activity ${args.account}/${args.slug}.` };
  },
});
