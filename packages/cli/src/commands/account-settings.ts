import { defineCommand } from '../command.js';
import { ACCOUNT, shownOnce, wholeNumber } from './shared.js';

export const tokensRotate = defineCommand({
  words: ['tokens', 'rotate'],
  summary: 'issue a new API token for an account (printed once); the old one stops working',
  description:
    'Issues a new API token for the account and prints it: the only time it is shown. The old token stops working at once (open event streams authenticated with it end within seconds).',
  arguments: [ACCOUNT],
  options: {},
  examples: ['tokens rotate acme'],
  async run({ args }, database) {
    const token = await (await database.management()).rotateToken(args.account!);
    return {
      json: { account: args.account, token },
      text: `Rotated the API token of ${args.account}; the old one no longer works.\n${shownOnce('API token', token)}`,
    };
  },
});

const SUBSCRIPTIONS = ['active', 'none'] as const;

export const subscriptionSet = defineCommand({
  words: ['subscription', 'set'],
  summary: 'set the subscription of an account: active or none',
  description:
    'Sets the subscription of an account. With `none`, its publishers get `402` (subscription required) and its open event streams end; `active` lets them publish again. Nothing the account owns is deleted.',
  arguments: [ACCOUNT, { name: 'status', help: 'active or none', choices: SUBSCRIPTIONS }],
  options: {},
  examples: ['subscription set acme none', 'subscription set acme active'],
  async run({ args }, database) {
    const subscription = args.status as (typeof SUBSCRIPTIONS)[number];
    await (await database.management()).setSubscription(args.account!, subscription);
    return { json: { account: args.account, subscription }, text: `Subscription of ${args.account}: ${subscription}.` };
  },
});

export const quotaSet = defineCommand({
  words: ['quota', 'set'],
  summary: 'set how many activities of an account may be live at once',
  description:
    'Sets the activity quota of an account: how many of its activities may be live (ONGOING) at once, 0 to 10000. Activities already live stay live; a start past the quota gets `429`.',
  arguments: [ACCOUNT, { name: 'n', help: 'the quota, 0-10000' }],
  options: {},
  examples: ['quota set acme 3'],
  async run({ args }, database) {
    const quota = wholeNumber(args.n!, 'the quota');
    await (await database.management()).setActivityQuota(args.account!, quota);
    return { json: { account: args.account, activity_quota: quota }, text: `Activity quota of ${args.account}: ${quota}.` };
  },
});
