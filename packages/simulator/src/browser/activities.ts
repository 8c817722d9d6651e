/** Live activities as pushed (`event: activity`): their phase, state, content and dismissal delay. */
import { progressBar, valueElement, type ProgressBar, type Value } from './blocks.js';
import { duration, h, iconElement } from './dom.js';

export interface ActivityPush {
  owner: string;
  slug: string;
  phase: 'start' | 'update' | 'end';
  state: 'ONGOING' | 'IDLE';
  content: any; // validated activity content, read per template below
  dismissal_delay_s: number;
}

export interface ShownActivity {
  push: ActivityPush;
  /** When an ended activity leaves the screen (its dismissal delay after the end), else null. */
  dismissAt: number | null;
}

export function renderActivity(activity: ShownActivity, now: number): HTMLElement {
  const { push } = activity;
  const ending =
    activity.dismissAt === null ? null : h('span', { class: 'sub dismissal' }, `ended · dismissed in ${duration(Math.max(0, activity.dismissAt - now))}`);
  return h(
    'article',
    { class: `activity ${push.phase}`, 'data-activity': `${push.owner}/${push.slug}`, 'data-phase': push.phase },
    h(
      'header',
      {},
      iconElement(push.content?.icon),
      h('strong', {}, push.slug),
      h('span', { class: 'badge' }, push.phase),
      h('span', { class: 'badge' }, push.state),
      h('span', { class: 'sub' }, `dismissal delay ${push.dismissal_delay_s} s`),
    ),
    renderActivityContent(push.content),
    ending,
  );
}

function renderActivityContent(content: any): Node {
  switch (content?.template) {
    case 'progress':
      return progressActivity(content);
    case 'monitor':
      return monitorActivity(content);
    case 'generic':
      return genericActivity(content);
    default:
      return h('pre', { class: 'raw' }, JSON.stringify(content, null, 2));
  }
}

function progressActivity(c: {
  progress: ProgressBar;
  header_left?: Value | null;
  header_right?: Value | null;
  footer_left?: Value | null;
  footer_right?: Value | null;
}): Node {
  return h(
    'div',
    {},
    h('div', { class: 'row' }, valueElement(c.header_left), valueElement(c.header_right)),
    progressBar(c.progress),
    h('div', { class: 'row' }, valueElement(c.footer_left, 'sub'), valueElement(c.footer_right, 'sub')),
  );
}

interface Column {
  header?: string | null;
  value: Value;
  footer?: string | null;
}

function monitorActivity(c: { left_column?: Column | null; right_column?: Column | null; primary_column?: 'left' | 'right' }): Node {
  const column = (col: Column | null | undefined, primary: boolean) =>
    col
      ? h(
          'div',
          { class: `column${primary ? ' primary' : ''}` },
          h('span', { class: 'sub' }, col.header ?? ''),
          valueElement(col.value, 'big'),
          h('span', { class: 'sub' }, col.footer ?? ''),
        )
      : null;
  const primary = c.primary_column ?? 'right';
  return h('div', { class: 'row' }, column(c.left_column, primary === 'left'), column(c.right_column, primary === 'right'));
}

function genericActivity(c: { progress: number; remaining_time?: number | null; state?: string | null }): Node {
  return h(
    'div',
    {},
    progressBar({ value: c.progress }),
    h(
      'div',
      { class: 'row' },
      h('span', { class: 'sub' }, c.state ?? ''),
      c.remaining_time != null ? h('span', { class: 'sub' }, `${duration(c.remaining_time * 1000)} left`) : null,
    ),
  );
}
