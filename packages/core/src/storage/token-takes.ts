import type { TokenBucketRule } from './records.js';

/** One bucket's part of a take: the rule it is refilled under and how many tokens it gives. */
export interface TokenTake {
  rule: TokenBucketRule;
  take: number;
}

/**
 * What a take of `rules` asks of each bucket (`Storage.admitPress`), one entry per key in
 * first-mention order: a key named twice gives two tokens, under its last rule's capacity
 * and refill time. Every store takes by this, so they agree on repeated keys.
 */
export function tokenTakes(rules: readonly TokenBucketRule[]): TokenTake[] {
  // Usually two rules with different keys: an array, not a Map.
  const takes: TokenTake[] = [];
  for (const rule of rules) {
    let same: TokenTake | undefined;
    for (const entry of takes) if (entry.rule.key === rule.key) same = entry;
    if (same) {
      same.rule = rule;
      same.take += 1;
    } else {
      takes.push({ rule, take: 1 });
    }
  }
  return takes;
}
