import { compareThroughput } from '../lib/throughput.mjs';
import { activityBody, widgetBody } from '../lib/payloads.mjs';

const pct = (ratio) => `${(ratio * 100).toFixed(1)} %`;

/** P0's server for a kind of body: the ceiling a scenario's figures are also set against (reported, no target). */
const ceilingFor = (kind) => ({ script: 'baselines/ceiling-node-http.mjs', args: [kind] });

function throughputScenario({ id, title, baseline, project, ceiling, path, body, minRatio, maxAddedCpu }) {
  return {
    id,
    title,
    async run({ quick }) {
      const result = await compareThroughput({ baseline, project, ceiling, path, body: body(), runs: quick ? 1 : 5, duration: quick ? 2 : 5 });
      const checks = [{ name: 'req/s vs baseline', value: pct(result.ratio), target: `>= ${pct(minRatio)}`, pass: result.ratio >= minRatio }];
      if (maxAddedCpu !== undefined) {
        checks.push({
          name: 'added CPU per request',
          value: `${result.addedCpuMicros} µs`,
          target: `<= ${maxAddedCpu} µs`,
          pass: result.addedCpuMicros <= maxAddedCpu,
        });
      }
      return {
        figures: {
          'baseline req/s': result.baseline.requestsPerSecond,
          'tilecast req/s': result.project.requestsPerSecond,
          'baseline CPU µs/req': result.baseline.cpuMicrosPerRequest,
          'tilecast CPU µs/req': result.project.cpuMicrosPerRequest,
          'baseline p99 ms': result.baseline.p99Ms,
          'tilecast p99 ms': result.project.p99Ms,
          ...(result.ceiling === undefined
            ? {}
            : {
                'ceiling (P0) req/s, CPU µs/req': `${result.ceiling.requestsPerSecond}, ${result.ceiling.cpuMicrosPerRequest}`,
                'of the ceiling: baseline / tilecast': `${pct(result.ceilingRatios.baseline)} / ${pct(result.ceilingRatios.project)}`,
              }),
        },
        checks,
        raw: result,
      };
    },
  };
}

/**
 * P0: the ceiling itself against P1's bare baseline, which does the same plus validating and
 * storing: how far a hand-written validating server already is from the most any Node
 * server could do. Reported, no target.
 */
export const p0 = {
  id: 'P0',
  title: "the ceiling: bare node:http reading and JSON.parsing P1's body and answering the same bytes, nothing validated, vs P1's baseline",
  async run({ quick }) {
    const result = await compareThroughput({
      baseline: ceilingFor('widget'),
      project: { script: 'baselines/publish-node-http.mjs', args: ['widget'] },
      path: '/widget/lights',
      body: widgetBody(),
      runs: quick ? 1 : 5,
      duration: quick ? 2 : 5,
    });
    return {
      figures: {
        'ceiling req/s': result.baseline.requestsPerSecond,
        'P1 baseline req/s': result.project.requestsPerSecond,
        'ceiling CPU µs/req': result.baseline.cpuMicrosPerRequest,
        'P1 baseline CPU µs/req': result.project.cpuMicrosPerRequest,
        'P1 baseline of the ceiling (reported)': pct(result.ratio),
        'P1 baseline added CPU per request': `${result.addedCpuMicros} µs`,
      },
      checks: [],
      raw: result,
    };
  },
};

export const p1 = throughputScenario({
  id: 'P1',
  title: 'PATCH /widget (1 KB switchboard), node:http adapter, memory storage, 50 connections',
  baseline: { script: 'baselines/publish-node-http.mjs', args: ['widget'] },
  project: { script: 'servers/tilecast.mjs', args: ['node-http'] },
  ceiling: ceilingFor('widget'),
  path: '/widget/lights',
  body: widgetBody,
  minRatio: 0.9,
  maxAddedCpu: 5,
});

export const p2 = throughputScenario({
  id: 'P2',
  title: 'PATCH /widget (1 KB switchboard), express adapter vs a hand-written express route',
  baseline: { script: 'baselines/publish-express.mjs' },
  project: { script: 'servers/tilecast.mjs', args: ['express'] },
  path: '/widget/lights',
  body: widgetBody,
  minRatio: 0.9,
});

export const p1h = throughputScenario({
  id: 'P1H',
  title: 'P1 through the Fetch adapter in a Hono app on @hono/node-server vs a hand-written Hono route',
  baseline: { script: 'baselines/publish-hono.mjs' },
  project: { script: 'servers/tilecast.mjs', args: ['fetch'] },
  ceiling: ceilingFor('widget'),
  path: '/widget/lights',
  body: widgetBody,
  minRatio: 0.9,
});

export const p1f = throughputScenario({
  id: 'P1F',
  title: 'P1 through the Fastify plugin vs a hand-written Fastify route',
  baseline: { script: 'baselines/publish-fastify.mjs' },
  project: { script: 'servers/tilecast.mjs', args: ['fastify'] },
  ceiling: ceilingFor('widget'),
  path: '/widget/lights',
  body: widgetBody,
  minRatio: 0.9,
});

export const p3 = throughputScenario({
  id: 'P3',
  title: 'PATCH /activity (progress, segmented bar), node:http adapter, memory storage',
  baseline: { script: 'baselines/publish-node-http.mjs', args: ['activity'] },
  project: { script: 'servers/tilecast.mjs', args: ['node-http'] },
  ceiling: ceilingFor('activity'),
  path: '/activity/order',
  body: activityBody,
  minRatio: 0.9,
});

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export const d1 = throughputScenario({
  id: 'D1',
  title: `PATCH /widget (1 KB switchboard), node:http adapter, PostgreSQL storage (${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}), the widget's delivery job written in the content's statement`,
  baseline: { script: 'baselines/publish-postgres.mjs', env: { DATABASE_URL } },
  project: { script: 'servers/tilecast.mjs', args: ['node-http', 'postgres'], env: { DATABASE_URL } },
  path: '/widget/lights',
  body: widgetBody,
  minRatio: 0.85,
});
