/** A `template` of its own that is set and none of `names` (the envelopes refuse it). */
export function hasOtherTemplate(input: Record<string, unknown>, names: readonly string[]): boolean {
  const template = Object.hasOwn(input, 'template') ? input.template : undefined;
  return template !== undefined && !names.includes(template as string);
}
