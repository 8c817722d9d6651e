#!/usr/bin/env node
// Commit subjects read as `area: imperative summary` in at most 72 characters (issue 21
// item 9). Checked for the commits after BASE: earlier history is what it is (nine helper
// commits of 2026-11-25 ran to 73-76 characters), and rewriting merged history would
// break every clone.
import { execFileSync } from 'node:child_process';

const BASE = 'c2ad2822fbe3faf05da5ca4ca309655930977001';
const SUBJECT = /^[A-Za-z0-9@/._-]+( [a-z0-9/._-]+)?: \S/;

let subjects;
try {
  subjects = execFileSync('git', ['log', '--format=%h %s', `${BASE}..HEAD`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
} catch {
  console.error(`commit subjects: ${BASE} is not in this clone's history (shallow clone?): nothing to check`);
  process.exit(1);
}
const bad = subjects.filter((line) => {
  const subject = line.slice(line.indexOf(' ') + 1);
  return subject.length > 72 || !SUBJECT.test(subject);
});
for (const line of bad) console.error(`commit subject not "area: summary" within 72 characters: ${line}`);
console.log(`commit subjects: ${subjects.length} checked, ${bad.length} bad`);
process.exit(bad.length === 0 ? 0 : 1);
