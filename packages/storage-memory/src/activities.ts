import { forgetActivityPushTokens } from './apns.js';
import { releaseChannelsOf } from './channels.js';
import { removeJob, writeJob, writtenAudience } from './delivery-jobs.js';
import { activityUpdateTime, isoTime, type ActivityRecord, type ActivityTransition, type ActivityStore } from '@tilecast/core/storage';
import { byCodeUnit, copy, guardRefusal, inner, type MemoryState } from './state.js';

function liveCount(activities: Map<string, ActivityRecord>): number {
  let live = 0;
  for (const activity of activities.values()) if (activity.live) live += 1;
  return live;
}

export function activityMethods(state: MemoryState): ActivityStore {
  return {
    async putActivity(definition) {
      const activities = inner(state.activities, definition.accountId);
      const existing = activities.get(definition.slug);
      const delivery = definition.delivery ?? 'tokens';
      const frequentUpdates = definition.frequentUpdates ?? false;
      if (existing && existing.template === definition.template) {
        existing.dismissalDelayS = definition.dismissalDelayS;
        existing.delivery = delivery;
        existing.frequentUpdates = frequentUpdates;
        return;
      }
      activities.set(definition.slug, {
        accountId: definition.accountId,
        slug: definition.slug,
        template: definition.template,
        dismissalDelayS: definition.dismissalDelayS,
        state: 'IDLE',
        live: false,
        content: null,
        updatedAt: null,
        delivery,
        frequentUpdates,
        // A changed template keeps the channels (the runner still deletes them after an end).
        channels: existing?.channels ?? { production: null, sandbox: null },
      });
    },

    async deleteActivity(accountId, slug) {
      const activities = state.activities.get(accountId);
      const activity = activities?.get(slug);
      if (!activities || !activity) return false;
      activities.delete(slug);
      if (activities.size === 0) state.activities.delete(accountId);
      releaseChannelsOf(state, activity);
      forgetActivityPushTokens(state, accountId, slug);
      removeJob(state, accountId, 'activity', slug);
      return true;
    },

    async listActivities(accountId) {
      const activities = state.activities.get(accountId);
      if (!activities) return [];
      return [...activities.keys()].sort(byCodeUnit).map((slug) => copy(activities.get(slug)!));
    },

    async getActivity(accountId, slug) {
      const activity = state.activities.get(accountId)?.get(slug);
      return activity ? copy(activity) : null;
    },

    // ATOMIC: everything below runs synchronously, with no await between the quota
    // count and the state change, and the job is written in that same step
    // (docs/contract/durable-delivery.md#durable-outbox).
    async applyActivityUpdate(accountId, slug, update) {
      const activities = state.activities.get(accountId);
      const activity = activities?.get(slug);
      const refusal = guardRefusal(state, accountId, activity?.template, update.guard);
      if (refusal !== null || !activities || !activity) return { ok: false, reason: refusal ?? 'not_found' };
      let transition: ActivityTransition;
      if (update.state === 'ONGOING') {
        if (activity.live) {
          transition = 'update';
        } else {
          const account = state.accounts.get(accountId);
          // An activity without its account cannot be started (there is no quota to count against).
          if (!account) return { ok: false, reason: 'not_found' };
          if (liveCount(activities) + 1 > account.activityQuota) return { ok: false, reason: 'quota_exceeded' };
          transition = 'start';
        }
      } else {
        transition = activity.live ? 'end' : 'none';
      }
      activity.state = update.state;
      activity.live = update.state === 'ONGOING';
      activity.content = update.content; // handed over by the caller (Storage rules)
      activity.updatedAt = isoTime(activityUpdateTime(activity.updatedAt, update.now));
      // `none` is pushed nowhere: no job, and an unfinished one stays as it is.
      const job = transition === 'none' ? null : writeJob(state, { accountId, kind: 'activity', slug }, transition, update.now, update.claim);
      const result = { ok: true as const, activity: { ...activity, channels: { ...activity.channels } }, transition, job };
      // The audience of a job claimed here, read in the same step (docs/decisions/0119-audience-in-the-write.md).
      const audience = job === null ? undefined : writtenAudience(state, job, update.claim);
      return audience === undefined ? result : { ...result, audience };
    },
  };
}
