import { describe, expect, it } from 'vitest';
import { claimed, type DeliveryJob, isClaimable, phaseFor, supersedingJob } from '../../src/storage/delivery-jobs.js';

const activity = { accountId: 'acme', kind: 'activity', slug: 'game' } as const;
const widget = { accountId: 'acme', kind: 'widget', slug: 'lights' } as const;
const at = (job: DeliveryJob, cursor: string): DeliveryJob => ({ ...job, cursor });

describe('delivery job rules (docs/contract/durable-delivery.md)', () => {
  it('writes a fresh job from the first device, due now for an activity', () => {
    const job = supersedingJob(null, { resource: activity, phase: 'start', now: 1000, generation: 7 });
    expect(job).toMatchObject({ generation: 7, phase: 'start', startAbove: null, cursor: '', dueAt: 1000, createdAt: 1000, leasedBy: null, leaseUntil: 0 });
  });

  it('makes a widget job wait for the end of its throttle window', () => {
    expect(supersedingJob(null, { resource: widget, phase: 'changed', now: 1000, generation: 1, windowUntil: 2500 }).dueAt).toBe(2500);
    expect(supersedingJob(null, { resource: widget, phase: 'changed', now: 3000, generation: 1, windowUntil: 2500 }).dueAt).toBe(3000);
  });

  it('keeps the start owed to devices a superseded start had not reached', () => {
    const start = supersedingJob(null, { resource: activity, phase: 'start', now: 1, generation: 1 });
    const update = supersedingJob(at({ ...start, leasedBy: 'a', leaseUntil: 99 }, 'd3'), { resource: activity, phase: 'update', now: 2, generation: 2 });
    expect(update).toMatchObject({ phase: 'update', startAbove: 'd3', cursor: '', leasedBy: null, leaseUntil: 0 });
    expect(['d1', 'd3', 'd4', 'd9'].map((id) => phaseFor(update, id))).toEqual(['update', 'update', 'start', 'start']);
    // Superseded again: devices above the furthest point either run reached still owe it.
    expect(supersedingJob(at(update, 'd5'), { resource: activity, phase: 'update', now: 3, generation: 3 }).startAbove).toBe('d5');
    expect(supersedingJob(at(update, 'd1'), { resource: activity, phase: 'update', now: 3, generation: 3 }).startAbove).toBe('d3');
  });

  it('owes no start once the activity ends or starts again, nor after a finished start', () => {
    const start = at(supersedingJob(null, { resource: activity, phase: 'start', now: 1, generation: 1 }), 'd3');
    expect(supersedingJob(start, { resource: activity, phase: 'end', now: 2, generation: 2 }).startAbove).toBeNull();
    expect(supersedingJob(start, { resource: activity, phase: 'start', now: 2, generation: 2 }).startAbove).toBeNull();
    expect(supersedingJob(null, { resource: activity, phase: 'update', now: 2, generation: 2 }).startAbove).toBeNull();
  });

  it('claims a due job without a valid lease, and counts taking over a lapsed one as a resume', () => {
    const job = supersedingJob(null, { resource: activity, phase: 'start', now: 1000, generation: 1 });
    expect(isClaimable(job, 999)).toBe(false);
    expect(isClaimable(job, 1000)).toBe(true);
    const first = claimed(job, { instanceId: 'a', now: 1000, leaseMs: 30_000 });
    expect(first).toMatchObject({ leasedBy: 'a', leaseUntil: 31_000, resumed: 0 });
    expect(isClaimable(first, 30_999)).toBe(false);
    expect(isClaimable(first, 31_000)).toBe(true);
    expect(claimed(first, { instanceId: 'a', now: 31_000, leaseMs: 30_000 }).resumed).toBe(0);
    expect(claimed(first, { instanceId: 'b', now: 31_000, leaseMs: 30_000 })).toMatchObject({ leasedBy: 'b', resumed: 1 });
  });
});
