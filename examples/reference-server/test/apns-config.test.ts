import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, readConfig } from '../src/config.js';

// The files must exist (they are checked at start); their content is checked when the server starts.
const dir = mkdtempSync(join(tmpdir(), 'tilecast-apns-config-'));
const KEY_FILE = join(dir, 'AuthKey_KEY1234567.p8');
const CA_FILE = join(dir, 'ca.pem');
writeFileSync(KEY_FILE, 'key');
writeFileSync(CA_FILE, 'ca');

const FOUR = {
  TILECAST_APNS_KEY_FILE: KEY_FILE,
  TILECAST_APNS_KEY_ID: 'KEY1234567',
  TILECAST_APNS_TEAM_ID: 'TEAM123456',
  TILECAST_APNS_BUNDLE_ID: 'com.example.app',
};

describe('APNs settings (docs/contract/apns.md#apns-reference-settings)', () => {
  it('none set: APNs delivery is off', () => {
    expect(readConfig({}).apns).toBeNull();
    expect(readConfig({ TILECAST_APNS_KEY_ID: '' }).apns).toBeNull();
  });

  it("all four set: on, with Apple's hosts and the default attributes-type", () => {
    expect(readConfig(FOUR).apns).toEqual({
      keyFile: KEY_FILE,
      keyId: 'KEY1234567',
      teamId: 'TEAM123456',
      bundleId: 'com.example.app',
      origin: null,
      manageOrigin: null,
      caFile: null,
      attributesType: 'TilecastActivityAttributes',
    });
  });

  it('the optional settings: origin, management origin, CA file and attributes-type', () => {
    const config = readConfig({
      ...FOUR,
      TILECAST_APNS_ORIGIN: 'https://127.0.0.1:8443/',
      TILECAST_APNS_MANAGE_ORIGIN: 'https://127.0.0.1:9443',
      TILECAST_APNS_CA_FILE: CA_FILE,
      TILECAST_APNS_ATTRIBUTES_TYPE: 'MyAttributes',
    });
    expect(config.apns).toMatchObject({
      origin: 'https://127.0.0.1:8443',
      manageOrigin: 'https://127.0.0.1:9443',
      caFile: CA_FILE,
      attributesType: 'MyAttributes',
    });
  });

  it('some but not all of the four: one line naming the missing ones', () => {
    const { TILECAST_APNS_TEAM_ID: _team, TILECAST_APNS_BUNDLE_ID: _bundle, ...two } = FOUR;
    expect(loadConfig(two).problems).toEqual([
      'APNs settings incomplete: TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID missing (set all of TILECAST_APNS_KEY_FILE, TILECAST_APNS_KEY_ID, TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID, or none)',
    ]);
    expect(() => readConfig(two)).toThrow(/^APNs settings incomplete: TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID missing \(/);
    // An empty value counts as missing.
    expect(() => readConfig({ ...FOUR, TILECAST_APNS_KEY_FILE: '' })).toThrow(/^APNs settings incomplete: TILECAST_APNS_KEY_FILE missing \(/);
    // One of the four alone: one line, naming the three others.
    for (const [name, value] of Object.entries(FOUR)) {
      const { problems } = loadConfig({ [name]: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^APNs settings incomplete: /);
      for (const other of Object.keys(FOUR)) expect(problems[0]!.split(' missing')[0]!.includes(other)).toBe(other !== name);
    }
  });

  it('an optional setting without the four is refused, not ignored', () => {
    expect(() => readConfig({ TILECAST_APNS_ORIGIN: 'https://127.0.0.1:8443' })).toThrow(
      'TILECAST_APNS_ORIGIN set but APNs is off: set TILECAST_APNS_KEY_FILE, TILECAST_APNS_KEY_ID, TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID to turn it on',
    );
  });

  it('the origin must be an https origin; a CA file needs it', () => {
    for (const origin of ['http://127.0.0.1:8443', 'https://127.0.0.1:8443/3/device', 'api.push.apple.com']) {
      expect(() => readConfig({ ...FOUR, TILECAST_APNS_ORIGIN: origin })).toThrow(
        `TILECAST_APNS_ORIGIN must be an https origin such as https://127.0.0.1:8443, got "${origin}"`,
      );
    }
    expect(() => readConfig({ ...FOUR, TILECAST_APNS_CA_FILE: CA_FILE })).toThrow(/^TILECAST_APNS_CA_FILE needs TILECAST_APNS_ORIGIN/);
  });

  it('each value is checked: files exist, Apple ids have 10 characters, a bundle id', () => {
    const { problems } = loadConfig({
      TILECAST_APNS_KEY_FILE: join(dir, 'missing.p8'),
      TILECAST_APNS_KEY_ID: 'key1',
      TILECAST_APNS_TEAM_ID: 'TEAM 12345',
      TILECAST_APNS_BUNDLE_ID: 'com.example app',
      TILECAST_APNS_ATTRIBUTES_TYPE: 'My Attributes',
      TILECAST_APNS_ORIGIN: 'https://127.0.0.1:8443',
      TILECAST_APNS_CA_FILE: dir,
    });
    expect(problems).toEqual([
      `TILECAST_APNS_KEY_FILE names a file that cannot be read: ${join(dir, 'missing.p8')} (no such file)`,
      'TILECAST_APNS_KEY_ID must be the 10-character key id Apple shows (A-Z, 0-9), got "key1"',
      'TILECAST_APNS_TEAM_ID must be the 10-character team id Apple shows (A-Z, 0-9), got "TEAM 12345"',
      'TILECAST_APNS_BUNDLE_ID must be a bundle id such as com.example.app, got "com.example app"',
      'TILECAST_APNS_ATTRIBUTES_TYPE must be a Swift type name, got "My Attributes"',
      `TILECAST_APNS_CA_FILE must name a file, ${dir} is a directory`,
    ]);
  });
});
