/**
 * Every JSON example in docs/android.md is valid, checked against what the marker before
 * its block names:
 * - `<!-- check: fcm/send-request -->`: the send request's shape as the FCM test double
 *   checks it (`messageProblem`), its `data.tilecast` as below, and the very bytes
 *   transport-fcm builds for the same push;
 * - `<!-- check: fcm/tilecast -->`: a decoded `data.tilecast` (`tilecastDataProblem`), its
 *   `content` against the published JSON Schema of its template and the valibot schema
 *   that JSON Schema is generated from;
 * - `<!-- check: fcm/registration -->`: the body of `PUT /device/fcm`;
 * - `<!-- schema: <path> [#/json/pointer] -->`: a published JSON Schema, as in
 *   docs/ios.md's test (`*` in a pointer stands for every item of an array).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { ActivityPush } from '@tilecast/core';
import { FCM_TOKEN_PATTERN, messageProblem, tilecastDataProblem } from '@tilecast/transport-fcm/test-double';
import { jsonSchemaSources, templateJsonSchemas } from '../../packages/core/src/openapi/json-schemas.js';
import { createManualClock } from '../support/manual-clock.js';
import { MessageBuilder } from '../../packages/transport-fcm/src/message.js';
import { fcmBody } from '../../packages/transport-fcm/src/request.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(path.join(root, 'docs/android.md'), 'utf8');

interface Example {
  line: number;
  json: unknown;
  checks: { kind: 'check' | 'schema'; name: string; pointer: string }[];
}

/** The ```json blocks of the page, each with the markers on the lines right before it. */
function examples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const found: Example[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index] !== '```json') continue;
    const end = lines.indexOf('```', index + 1);
    const checks: Example['checks'] = [];
    for (let above = index - 1; above >= 0; above -= 1) {
      const marker = /^<!-- (check|schema): (\S+)(?: (#\S*))? -->$/.exec(lines[above]!);
      if (marker === null) break;
      checks.unshift({ kind: marker[1] as 'check' | 'schema', name: marker[2]!, pointer: marker[3] ?? '#' });
    }
    found.push({ line: index + 1, json: JSON.parse(lines.slice(index + 1, end).join('\n')), checks });
    index = end;
  }
  return found;
}

/** The values at a JSON pointer, `*` matching every item of an array. */
function select(value: unknown, pointer: string): unknown[] {
  let values = [value];
  for (const token of pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')) {
    values = values.flatMap((current) => {
      if (token === '*') return Array.isArray(current) ? current : [];
      return typeof current === 'object' && current !== null && Object.hasOwn(current, token) ? [(current as Record<string, unknown>)[token]] : [];
    });
  }
  return values;
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);
const published = templateJsonSchemas();
const found = examples(doc);

/** What is wrong with `value` against published schema `name` and its valibot source (empty when nothing). */
function schemaProblems(name: string, value: unknown): string[] {
  if (!(name in published)) return [`no published schema ${name}`];
  const validate = ajv.compile(published[name]!);
  const problems = validate(value) ? [] : (validate.errors ?? []).map((error) => `${name}${error.instancePath}: ${error.message}`);
  const parsed = v.safeParse(jsonSchemaSources[name]!, value);
  if (!parsed.success) problems.push(...parsed.issues.map((issue) => `${name} (valibot) ${v.getDotPath(issue)}: ${issue.message}`));
  return problems;
}

/** What is wrong with a decoded `data.tilecast`: its shape, then its content against its template's schema. */
function tilecastProblems(data: unknown): string[] {
  const shape = tilecastDataProblem(data);
  if (shape !== null) return [shape];
  const content = (data as { content?: { template?: unknown } }).content;
  return content === undefined ? [] : schemaProblems(`activity/${String(content.template)}`, content);
}

/** The push Tilecast would have made this message of (the doc's examples are all activities). */
function pushOf(data: {
  owner: string;
  slug: string;
  event: ActivityPush['phase'];
  state: ActivityPush['state'];
  content: unknown;
  timestamp: number;
}): ActivityPush {
  const content = data.content as { template: string };
  return {
    owner: data.owner,
    slug: data.slug,
    phase: data.event,
    state: data.state,
    content,
    dismissal_delay_s: 30,
    template: content.template,
    updated_at: new Date(data.timestamp * 1000).toISOString(),
  };
}

function problemsOf(check: Example['checks'][number], json: unknown): string[] {
  const values = select(json, check.pointer);
  if (values.length === 0) return [`${check.name} ${check.pointer} selects nothing`];
  return values.flatMap((value) => {
    if (check.kind === 'schema') return schemaProblems(check.name, value);
    if (check.name === 'fcm/tilecast') return tilecastProblems(value);
    if (check.name === 'fcm/registration') {
      const keys = typeof value === 'object' && value !== null ? Object.keys(value) : [];
      const token = (value as { token?: unknown }).token;
      return keys.join() === 'token' && typeof token === 'string' && FCM_TOKEN_PATTERN.test(token) ? [] : ['not {"token": <registration token>}'];
    }
    if (check.name === 'fcm/send-request') {
      const shape = messageProblem(value);
      if (shape !== null) return [`${shape.field}: ${shape.problem}`];
      return tilecastProblems(JSON.parse((value as { message: { data: { tilecast: string } } }).message.data.tilecast));
    }
    return [`unknown check ${check.name}`];
  });
}

describe('docs/android.md examples', () => {
  it('has marked examples of every shape an app registers, receives or reads', () => {
    expect(found.length).toBeGreaterThanOrEqual(9);
    for (const example of found) expect(example.checks.length, `the block at line ${example.line} has no marker`).toBeGreaterThan(0);
    const used = new Set(found.flatMap((example) => example.checks.map((check) => `${check.kind}: ${check.name}`)));
    expect([...used].sort()).toEqual([
      'check: fcm/registration',
      'check: fcm/send-request',
      'check: fcm/tilecast',
      'schema: device/activity',
      'schema: device/widget',
    ]);
    // Every kind of message an app receives is shown: each activity event, one without content, a widget's.
    const messages = found
      .filter((example) => example.checks.some((check) => check.name === 'fcm/tilecast'))
      .map((example) => example.json as Record<string, unknown>);
    expect(new Set(messages.map((m) => `${m.kind} ${m.event} ${'content' in m ? 'with' : 'without'} content`))).toEqual(
      new Set([
        'activity start with content',
        'activity update with content',
        'activity end with content',
        'activity update without content',
        'widget changed without content',
      ]),
    );
  });

  it.each(found.map((example) => [example.line, example] as const))('the block at line %i is valid', (_line, example) => {
    for (const check of example.checks) expect(problemsOf(check, example.json), `${check.kind}: ${check.name}`).toEqual([]);
  });

  it('the send request is what transport-fcm builds for that push, and its data is the decoded example', () => {
    const example = found.find((e) => e.checks.some((check) => check.name === 'fcm/send-request'))!;
    const request = example.json as { message: { token: string; data: { tilecast: string } } };
    const data = JSON.parse(request.message.data.tilecast);
    const builder = new MessageBuilder({ projectId: 'acme-app', updatePriority: 'normal', widgetPriority: 'normal', clock: createManualClock() });
    const push = pushOf(data);
    const message = builder.activity(push);
    const ticket = { deviceId: 'phone', push, message, at: message.at, key: 'phone', seq: 1 };
    const job = builder.job(ticket, request.message.token, () => {});
    expect(fcmBody(job)).toBe(JSON.stringify(request));
    const decoded = found.find((e) => e.checks.some((check) => check.name === 'fcm/tilecast'))!.json;
    expect(data).toEqual(decoded);
  });

  it('the Kotlin class names every field of the message', () => {
    const kotlin = /data class TilecastMessage\(([\s\S]*?)\n\) \{/.exec(doc)![1]!;
    const fields = [...kotlin.matchAll(/(?:@SerialName\("(\w+)"\) )?val (\w+)/g)].map((match) => match[1] ?? match[2]);
    expect(fields).toEqual(['kind', 'owner', 'slug', 'event', 'state', 'content', 'timestamp', 'dismissal_date']);
  });

  it('the checks can fail: a changed example is refused', () => {
    const start = found.find((e) => e.checks.some((check) => check.name === 'fcm/tilecast'))!.json as Record<string, unknown>;
    expect(tilecastProblems({ ...start, state: 'RUNNING' })).not.toEqual([]);
    expect(tilecastProblems({ ...start, content: { ...(start.content as object), progress: 1.5 } })).not.toEqual([]);
    expect(tilecastProblems({ ...start, event: 'changed' })).not.toEqual([]);
    expect(tilecastProblems({ ...start, dismissal_date: 1795100430 })).not.toEqual([]);
    const widget = found.filter((e) => e.checks.some((check) => check.name === 'fcm/tilecast')).at(-1)!.json as Record<string, unknown>;
    expect(tilecastProblems({ ...widget, content: {} })).not.toEqual([]);
    const request = found.find((e) => e.checks.some((check) => check.name === 'fcm/send-request'))!.json as { message: Record<string, unknown> };
    expect(
      problemsOf({ kind: 'check', name: 'fcm/send-request', pointer: '#' }, { message: { ...request.message, notification: { title: 'x' } } }),
    ).not.toEqual([]);
    expect(
      problemsOf({ kind: 'check', name: 'fcm/send-request', pointer: '#' }, { message: { ...request.message, android: { priority: 'urgent' } } }),
    ).not.toEqual([]);
    expect(problemsOf({ kind: 'check', name: 'fcm/registration', pointer: '#' }, { token: 'has spaces in it' })).not.toEqual([]);
  });
});
