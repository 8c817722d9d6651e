/**
 * One typed request of every template, as a publisher would write it: only what is
 * required, and a few defaulted fields left out on purpose. `tooling.test.ts` checks that
 * the service accepts each one and that the `openapi-typescript` types of `/openapi.json`
 * accept them too.
 */
const T0 = '2026-05-01T10:00:00Z';

/** `PATCH /activity/{activity_id}` bodies, by template. */
export const activityRequests = {
  progress: { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 } } },
  progressSegmented: { state: 'ONGOING', content: { progress: { value: 0.5, segments: [{ value: 0.5, fill_color: 'green' }] } } },
  monitor: { state: 'ONGOING', content: { template: 'monitor', right_column: { value: { value: '21 °C' } } } },
  generic: { state: 'IDLE', content: { template: 'generic', progress: 1 } },
} as const;

/** `PATCH /widget/{slug}` bodies, by template. */
export const widgetRequests = {
  status: { content: { template: 'status', value: { value: 'OK' } } },
  progress: { content: { template: 'progress', progress: { value: 0.5 } }, stale_after: 600 },
  gauge: { content: { template: 'gauge', value: 21 } },
  battery: { content: { template: 'battery', devices: [{ name: 'Phone', level: 80 }] } },
  budget: { content: { template: 'budget', total: { spent: 120 }, currency: 'EUR' } },
  trend: { content: { template: 'trend', value: 3, points: [1, 2, 3] } },
  countdown: { content: { template: 'countdown', target: T0 }, stale_after: null },
  list: { content: { template: 'list', rows: [{ label: 'CPU', value: { value: '12 %' } }] } },
  prices: { content: { template: 'prices', entries: [{ start: T0, price: -0.05 }] } },
  energy: { content: { template: 'energy', home: { power: 1200 } } },
  switchboard: {
    content: {
      template: 'switchboard',
      actions: [
        { id: 'door', label: 'Open door' },
        { id: 'lamp', label: 'Lamp', kind: 'toggle', on: false },
      ],
    },
  },
  untagged: { content: { value: 21 } },
} as const;

/** `PUT /widget/{slug}/webhooks` and `POST /device/presses` bodies. */
export const otherRequests = {
  webhooks: { webhooks: { '*': { url: 'https://example.com/hook' }, lamp: { url: 'https://example.com/{{action}}', method: 'PUT', secret: 's' } } },
  press: { owner: 'acme', slug: 'lights', request_id: '01J9Z3K8', action: 'lamp', value: true },
  push: { environment: 'sandbox', widgets: 'ab'.repeat(32) },
} as const;
