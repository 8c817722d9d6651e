import { activityTemplateNames } from '@tilecast/core/schemas';
import { defineCommand } from '../command.js';
import { failure } from '../errors.js';
import { ACCOUNT, SLUG, wholeNumber } from './shared.js';

export const activitiesCreate = defineCommand({
  words: ['activities', 'create'],
  summary: 'create an activity of an account',
  description:
    'Creates an activity (a Live Activity publishers update with `PATCH /activity/<slug>`). An existing activity is never changed: the command fails instead.',
  arguments: [ACCOUNT, SLUG],
  options: {
    template: { value: '<name>', help: `its template: ${activityTemplateNames.join(', ')} `, choices: activityTemplateNames, required: true },
    'dismissal-delay': { value: '<seconds>', help: 'how long an ended activity stays on screen, 0-14400; default 0' },
  },
  examples: ['activities create acme build --template progress', 'activities create acme deploy --template generic --dismissal-delay 600'],
  async run({ args, options }, database) {
    const template = options.template as (typeof activityTemplateNames)[number];
    const dismissalDelayS = options['dismissal-delay'] === undefined ? 0 : wholeNumber(options['dismissal-delay'], '--dismissal-delay');
    const created = await (await database.management()).createActivityIfAbsent({ account: args.account!, slug: args.slug!, template, dismissalDelayS });
    if (!created) throw failure(`account "${args.account}" already has an activity "${args.slug}" (left as it is)`);
    return {
      json: { account: args.account, slug: args.slug, template, dismissal_delay_s: dismissalDelayS },
      text: `Created activity ${args.account}/${args.slug} (template ${template}, dismissal delay ${dismissalDelayS} s).`,
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
