import { DEFAULT_ACTIVITY_QUOTA, MAX_ACCOUNT_PAGE, type AccountSummary } from '@tilecast/core';
import { defineCommand } from '../command.js';
import { failure } from '../errors.js';
import { ACCOUNT, shownOnce, table, wholeNumber } from './shared.js';

const SUBSCRIPTIONS = ['active', 'none'] as const;

/** An account in `--json` output: the seed file's field names. */
const accountJson = (account: AccountSummary) => ({ id: account.id, subscription: account.subscription, activity_quota: account.activityQuota });

export const accountsCreate = defineCommand({
  words: ['accounts', 'create'],
  summary: 'create an account and print its API token (once)',
  description:
    'Creates an account and prints its API token, which publishers send as `Authorization: Token <token>`. The token is stored hashed: this is the only time it is shown (`tokens rotate` issues a new one). An existing account is never changed: the command fails instead.',
  arguments: [ACCOUNT],
  options: {
    subscription: { value: '<status>', help: 'active (publishing allowed) or none; default active', choices: SUBSCRIPTIONS },
    quota: { value: '<n>', help: `how many activities may be live at once (0-10000); default ${DEFAULT_ACTIVITY_QUOTA}` },
  },
  examples: ['accounts create acme', 'accounts create acme --quota 2 --json'],
  async run({ args, options }, database) {
    const management = await database.management();
    const subscription = (options.subscription ?? 'active') as (typeof SUBSCRIPTIONS)[number];
    const activityQuota = options.quota === undefined ? DEFAULT_ACTIVITY_QUOTA : wholeNumber(options.quota, '--quota');
    const created = await management.createAccountIfAbsent({ id: args.account!, subscription, activityQuota });
    if (created === null) {
      throw failure(`account "${args.account}" already exists (left as it is; \`tilecast tokens rotate ${args.account}\` issues a new token)`);
    }
    return {
      json: { ...accountJson({ id: created.id, subscription, activityQuota }), token: created.token },
      text: `Created account ${created.id} (subscription ${subscription}, activity quota ${activityQuota}).\n${shownOnce('API token', created.token)}`,
    };
  },
});

export const accountsList = defineCommand({
  words: ['accounts', 'list'],
  summary: 'list the accounts (never their tokens)',
  description: 'Lists every account, sorted by id, with its subscription and activity quota. Tokens are stored hashed and never listed.',
  arguments: [],
  options: {},
  examples: ['accounts list', 'accounts list --json'],
  async run(_input, database) {
    const management = await database.management();
    const accounts: AccountSummary[] = [];
    // Page by page, each after the last id of the one before: the ids rise, so the loop ends with the accounts.
    let after: string | undefined;
    for (;;) {
      const page = await management.listAccounts({ after });
      accounts.push(...page);
      if (page.length < MAX_ACCOUNT_PAGE) break;
      after = page[page.length - 1]!.id;
    }
    const rows = accounts.map((a) => [a.id, a.subscription, String(a.activityQuota)]);
    return { json: { accounts: accounts.map(accountJson) }, text: accounts.length === 0 ? 'No accounts.' : table(['ACCOUNT', 'SUBSCRIPTION', 'QUOTA'], rows) };
  },
});

export const accountsDelete = defineCommand({
  words: ['accounts', 'delete'],
  summary: 'delete an account with its activities, widgets, devices and events',
  description:
    'Deletes an account and everything it owns: activities, widgets (and their shares), devices (and the shares naming them), events. Its token stops working at once; open streams end within seconds.',
  arguments: [ACCOUNT],
  options: {},
  examples: ['accounts delete acme'],
  async run({ args }, database) {
    const management = await database.management();
    if (!(await management.deleteAccount(args.account!))) throw failure(`no account "${args.account}"`);
    return { json: { id: args.account, deleted: true }, text: `Deleted account ${args.account} with its activities, widgets, devices and events.` };
  },
});
