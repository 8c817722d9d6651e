import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, type Fixture } from '../support/fixtures.js';

const nullIcon = { rendering_mode: null, primary_color: null, secondary_color: null, tertiary_color: null, color_rendering: null };

describe.each(adapters)('PATCH /activity/{slug} through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  const patch = (slug: string, body: unknown, token = f.acme) => request(api, 'PATCH', `/activity/${slug}`, { token, body });
  beforeEach(async () => {
    api = await startApi(adapter);
    f = await seedFixture(api.tilecast);
  });
  afterEach(() => api.close());

  describe('echo', () => {
    it('progress: defaults applied, optional fields null, icon_v2 null', async () => {
      const reply = await patch('build', progressUpdate(0.5));
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        state: 'ONGOING',
        content: {
          template: 'progress',
          tap_url: null,
          icon: null,
          icon_v2: null,
          progress: { style: 'simple', value: 0.5, color: 'blue' },
          header_left: null,
          header_right: null,
          footer_left: null,
          footer_right: null,
          compact_value: null,
        },
      });
    });

    it("progress: omitted template means the activity's own; a bar with segments is segmented", async () => {
      const reply = await patch('build', {
        state: 'ONGOING',
        content: { icon: 'hammer', progress: { value: 0.3, segments: [{ value: 0.2, fill_color: 'green' }] }, header_left: { value: 'Build' } },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.content).toMatchObject({
        template: 'progress',
        icon: 'hammer',
        icon_v2: { name: 'hammer', ...nullIcon },
        progress: {
          style: 'segmented',
          value: 0.3,
          display: 'split',
          segments: [{ value: 0.2, fill_color: 'green', track_color: 'gray', track_fill: 'solid', label: null }],
        },
        header_left: { value: 'Build', text_color: null, formatter: null },
      });
    });

    it('an Icon object is echoed in full and copied to icon_v2', async () => {
      const icon = { name: 'flame', primary_color: 'red' };
      const reply = await patch('build', { state: 'ONGOING', content: { progress: { value: 1 }, icon } });
      const full = { ...nullIcon, name: 'flame', primary_color: 'red' };
      expect(reply.body.content.icon).toEqual(full);
      expect(reply.body.content.icon_v2).toEqual(full);
    });

    it('monitor and generic templates', async () => {
      const monitor = await patch('temps', { state: 'ONGOING', content: { template: 'monitor', left_column: { value: { value: '21°' } } } });
      expect(monitor.status).toBe(200);
      expect(monitor.body.content).toEqual({
        template: 'monitor',
        tap_url: null,
        icon: null,
        icon_v2: null,
        left_column: { header: null, value: { value: '21°', text_color: null, formatter: null }, footer: null },
        right_column: null,
        primary_column: 'right',
      });
      const generic = await patch('legacy', { state: 'ONGOING', content: { progress: 0.25 } });
      expect(generic.status).toBe(200);
      expect(generic.body.content).toEqual({
        template: 'generic',
        tap_url: null,
        icon: null,
        icon_v2: null,
        progress: 0.25,
        remaining_time: null,
        state: null,
      });
    });
  });

  describe('errors and the order of checks', () => {
    it('422 field errors for a missing body field, with FastAPI locs and no input echoed', async () => {
      const reply = await patch('build', { content: { progress: { value: 0.5 } } });
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({ detail: [{ loc: ['body', 'state'], msg: 'Field required', type: 'missing' }] });
    });

    it('422 for a bad state value and an unknown template name (loc body.content.template)', async () => {
      const reply = await patch('build', { state: 'RUNNING', content: { template: 'fancy' } });
      expect(reply.status).toBe(422);
      const locs = reply.body.detail.map((d: { loc: unknown }) => d.loc);
      expect(locs).toContainEqual(['body', 'state']);
      expect(locs).toContainEqual(['body', 'content', 'template']);
      expect(JSON.stringify(reply.body)).not.toContain('RUNNING');
      expect(JSON.stringify(reply.body)).not.toContain('fancy');
    });

    it('envelope errors come before the slug lookup (422 before 404)', async () => {
      const reply = await patch('nope', { state: 'ONGOING' });
      expect(reply.status).toBe(422);
    });

    it('404 Activity not found before 400 Template mismatch', async () => {
      const reply = await patch('nope', { state: 'ONGOING', content: { template: 'monitor' } });
      expect(reply).toMatchObject({ status: 404, body: { detail: 'Activity not found' } });
    });

    it('400 Template mismatch before content validation', async () => {
      const reply = await patch('build', { state: 'ONGOING', content: { template: 'generic', progress: 7 } });
      expect(reply).toMatchObject({ status: 400, body: { detail: 'Template mismatch' } });
    });

    it('content errors carry the plain JSON path', async () => {
      const reply = await patch('build', progressUpdate(1.5));
      expect(reply.status).toBe(422);
      expect(reply.body.detail).toHaveLength(1);
      expect(reply.body.detail[0]).toMatchObject({ loc: ['body', 'content', 'progress', 'value'], type: 'less_than_equal' });
      expect(Object.keys(reply.body.detail[0]).sort()).toEqual(['loc', 'msg', 'type']);
    });

    it('content errors come before the quota check', async () => {
      await patch('deploy', progressUpdate());
      await patch('release', progressUpdate());
      const invalid = await patch('build', progressUpdate(-1));
      expect(invalid.status).toBe(422);
      expect(Array.isArray(invalid.body.detail)).toBe(true);
      const overQuota = await patch('build', progressUpdate());
      expect(overQuota).toMatchObject({ status: 422, body: { detail: 'Too many ongoing activities' } });
    });

    it('values are never coerced', async () => {
      const reply = await patch('legacy', { state: 'ONGOING', content: { progress: '0.5', remaining_time: '60' } });
      expect(reply.status).toBe(422);
      const locs = reply.body.detail.map((d: { loc: unknown }) => d.loc);
      expect(locs).toContainEqual(['body', 'content', 'progress']);
      expect(locs).toContainEqual(['body', 'content', 'remaining_time']);
    });

    it('a refused update changes nothing', async () => {
      await patch('build', progressUpdate(0.2));
      await patch('build', progressUpdate(2));
      const stored = await api.storage.getActivity('acme', 'build');
      expect(stored?.content).toMatchObject({ progress: { value: 0.2 } });
    });
  });

  describe('lifecycle and quota', () => {
    it('start, update, end: the quota counts live activities only', async () => {
      expect((await patch('build', progressUpdate(0.1))).status).toBe(200);
      expect((await patch('deploy', progressUpdate(0.1))).status).toBe(200);
      expect((await patch('build', progressUpdate(0.9))).status).toBe(200); // update in place, no new slot
      expect((await patch('release', progressUpdate())).body).toEqual({ detail: 'Too many ongoing activities' });
      expect((await patch('build', progressUpdate(1, 'IDLE'))).body.state).toBe('IDLE');
      expect((await patch('release', progressUpdate())).status).toBe(200);
    });

    it('IDLE on a not-live activity is stored and pushed to no device', async () => {
      const reply = await patch('build', progressUpdate(0, 'IDLE'));
      expect(reply.status).toBe(200);
      await api.tilecast.idle();
      expect(api.transport.pushes).toEqual([]);
      expect((await api.storage.getActivity('acme', 'build'))?.state).toBe('IDLE');
    });

    it('pushes start, update and end (with the dismissal delay) to every device of the account', async () => {
      await api.tilecast.management.registerDevice({ id: 'acme-tablet', account: 'acme' });
      await patch('build', progressUpdate(0.1));
      await patch('build', progressUpdate(0.6));
      await patch('build', progressUpdate(1, 'IDLE'));
      await api.tilecast.idle();
      const phases = api.transport.pushes.map((p) => [p.deviceId, p.kind, p.kind === 'activity' ? p.push.phase : null]);
      expect(phases.filter((p) => p[0] === 'acme-phone')).toEqual([
        ['acme-phone', 'activity', 'start'],
        ['acme-phone', 'activity', 'update'],
        ['acme-phone', 'activity', 'end'],
      ]);
      expect(phases.filter((p) => p[0] === 'acme-tablet')).toHaveLength(3);
      expect(phases.some((p) => p[0] === 'guest-phone')).toBe(false);
      const end = api.transport.pushes.find((p) => p.kind === 'activity' && p.push.phase === 'end');
      expect(end?.push).toMatchObject({ owner: 'acme', slug: 'build', state: 'IDLE', dismissal_delay_s: 30 });
    });

    it('a failing device neither fails the PATCH nor blocks the other devices', async () => {
      await api.tilecast.management.registerDevice({ id: 'acme-tablet', account: 'acme' });
      api.transport.failFor('acme-phone');
      expect((await patch('build', progressUpdate())).status).toBe(200);
      await api.tilecast.idle();
      expect(api.transport.pushes.map((p) => p.deviceId)).toEqual(['acme-tablet']);
    });

    it('N concurrent starts against quota Q: exactly Q succeed', async () => {
      const quota = 7;
      const n = 30;
      await api.tilecast.management.setActivityQuota('acme', quota);
      for (let i = 0; i < n; i++) await api.tilecast.management.createActivity({ account: 'acme', slug: `race-${i}`, template: 'progress' });
      const replies = await Promise.all(Array.from({ length: n }, (_, i) => patch(`race-${i}`, progressUpdate())));
      const ok = replies.filter((r) => r.status === 200).length;
      const refused = replies.filter((r) => r.status === 422 && r.body.detail === 'Too many ongoing activities').length;
      expect([ok, refused]).toEqual([quota, n - quota]);
    });
  });
});
