import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import { activityContentSchemas, activityUpdateEnvelope, validate, withIconV2 } from '../schemas/index.js';
import type { AccountRecord, ActivityStateName } from '../storage/records.js';

export interface ActivityData {
  state: ActivityStateName;
  content: Record<string, unknown>;
}

/**
 * `PATCH /activity/{slug}` after authentication, in the order of reference-deployment §2:
 * envelope (422 array) → lookup (404) → template (400) → content (422 array) → quota (422).
 */
export async function updateActivity(
  context: TilecastContext,
  account: AccountRecord,
  slug: string,
  body: unknown,
): Promise<ActivityData> {
  const envelope = validate(activityUpdateEnvelope, body, ['body']);
  if (!envelope.success) fail({ kind: 'validation', errors: envelope.errors });
  const { state, content } = envelope.output;

  const activity = await context.storage.getActivity(account.id, slug);
  if (activity === null) fail({ kind: 'activity_not_found' });
  const template = content.template ?? activity.template;
  if (template !== activity.template) fail({ kind: 'template_mismatch' });

  const schema = activityContentSchemas[template as keyof typeof activityContentSchemas];
  const validated = validate(schema, { ...content, template }, ['body', 'content']);
  if (!validated.success) fail({ kind: 'validation', errors: validated.errors });

  const result = await context.storage.applyActivityUpdate(account.id, slug, {
    state,
    content: validated.output,
    now: context.clock.now(),
  });
  if (!result.ok) fail(result.reason === 'quota_exceeded' ? { kind: 'too_many_ongoing_activities' } : { kind: 'activity_not_found' });

  context.devices.activityChanged(result.activity, result.transition);
  return { state: result.activity.state, content: withIconV2(result.activity.content as Record<string, unknown>) };
}
