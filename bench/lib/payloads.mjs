/** The request bodies the publisher scenarios send (the same bytes to baseline and Tilecast). */

/** A switchboard of 8 actions: about 1 KB of content. */
export function switchboardContent() {
  const actions = Array.from({ length: 8 }, (_, i) =>
    i % 2 === 0
      ? { id: `light-${i}`, label: `Light ${i} in the hall`, kind: 'toggle', on: i % 4 === 0, icon: 'lightbulb', color: 'yellow' }
      : { id: `scene-${i}`, label: `Scene ${i}`, kind: 'button', icon: 'sparkles', state_words: { sent: 'Done' } },
  );
  return { template: 'switchboard', title: 'Home', subtitle: 'Ground floor', gradient: { from: 'indigo', to: 'purple' }, actions };
}

export const widgetBody = () => JSON.stringify({ content: switchboardContent() });

/** A progress activity with a segmented bar. */
export function progressContent() {
  return {
    template: 'progress',
    icon: { name: 'shippingbox', primary_color: 'blue' },
    progress: {
      style: 'segmented',
      value: 0.62,
      segments: [
        { label: 'Ordered', value: 1, fill_color: 'green' },
        { label: 'Packed', value: 1, fill_color: 'green' },
        { label: 'Shipped', value: 0.5, fill_color: 'blue' },
        { label: 'Delivered', value: 0, fill_color: 'gray' },
      ],
    },
    header_left: { value: 'Order 1234', text_color: 'gray' },
    footer_right: { value: 'Tomorrow', formatter: null },
  };
}

export const activityBody = () => JSON.stringify({ state: 'ONGOING', content: progressContent() });
