import type { PublisherCredential } from '../auth/publisher-credentials.js';
import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import { activityContentSchemas, validate, withIconV2 } from '../schemas/index.js';
import { validateActivityEnvelope } from '../schemas/usual-envelopes.js';
import type { ActivityStateName } from '../storage/records.js';
import { checkedTemplate, refusalError, withTemplate } from './publish-checks.js';

export interface ActivityData {
  state: ActivityStateName;
  content: Record<string, unknown>;
}

/**
 * `PATCH /activity/{slug}` after authentication, answering in the order of
 * docs/contract/publisher-api.md#check-order: envelope (422 array) → lookup (404) → template (400) →
 * content (422 array) → quota (422).
 *
 * As for widgets, a body that names its template is checked first and written with the
 * lookup and template check as the write's guard; invalid content is looked up first so
 * that 404 and 400 keep their precedence.
 */
export async function updateActivity(
  context: TilecastContext,
  { account, tokenHash }: PublisherCredential,
  slug: string,
  body: unknown,
): Promise<ActivityData> {
  const envelope = validateActivityEnvelope(body);
  if (!envelope.success) fail({ kind: 'validation', errors: envelope.errors });
  const { state, content } = envelope.output;
  const template = content.template ?? checkedTemplate(await context.storage.getActivity(account.id, slug), 'activity');

  const schema = activityContentSchemas[template as keyof typeof activityContentSchemas];
  const validated = validate(schema, withTemplate(content, template), ['body', 'content']);
  if (!validated.success) {
    if (content.template !== undefined) checkedTemplate(await context.storage.getActivity(account.id, slug), 'activity', template);
    fail({ kind: 'validation', errors: validated.errors });
  }

  const result = await context.storage.applyActivityUpdate(account.id, slug, {
    state,
    content: validated.output,
    now: context.clock.now(),
    guard: { tokenHash, template },
    claim: context.devices.writeClaim(),
  });
  if (!result.ok) fail(refusalError(result.reason, 'activity'));

  context.devices.activityChanged(result.activity, result.transition, result.job, result.audience);
  return { state: result.activity.state, content: withIconV2(result.activity.content as Record<string, unknown>) };
}
