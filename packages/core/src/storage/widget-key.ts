/**
 * A widget's key in the store's push throttle windows and press notes: presses write the
 * notes under it, the device fan-out claims windows and reads notes under it.
 */
export const widgetKey = (owner: string, slug: string): string => `${owner}/${slug}`;
