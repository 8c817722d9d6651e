import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';

const FOUR = {
  TILECAST_APNS_KEY_FILE: '/keys/AuthKey_KEY1234567.p8',
  TILECAST_APNS_KEY_ID: 'KEY1234567',
  TILECAST_APNS_TEAM_ID: 'TEAM123456',
  TILECAST_APNS_BUNDLE_ID: 'com.example.app',
};

describe('APNs settings (real-devices §3)', () => {
  it('none set: APNs delivery is off', () => {
    expect(readConfig({}).apns).toBeNull();
    expect(readConfig({ TILECAST_APNS_KEY_ID: '' }).apns).toBeNull();
  });

  it("all four set: on, with Apple's hosts and the default attributes-type", () => {
    expect(readConfig(FOUR).apns).toEqual({
      keyFile: '/keys/AuthKey_KEY1234567.p8',
      keyId: 'KEY1234567',
      teamId: 'TEAM123456',
      bundleId: 'com.example.app',
      origin: null,
      caFile: null,
      attributesType: 'TilecastActivityAttributes',
    });
  });

  it('the optional settings: origin, CA file and attributes-type', () => {
    const config = readConfig({
      ...FOUR,
      TILECAST_APNS_ORIGIN: 'https://127.0.0.1:8443/',
      TILECAST_APNS_CA_FILE: '/tmp/ca.pem',
      TILECAST_APNS_ATTRIBUTES_TYPE: 'MyAttributes',
    });
    expect(config.apns).toMatchObject({ origin: 'https://127.0.0.1:8443', caFile: '/tmp/ca.pem', attributesType: 'MyAttributes' });
  });

  it('some but not all of the four: one line naming the missing ones', () => {
    const { TILECAST_APNS_TEAM_ID: _team, TILECAST_APNS_BUNDLE_ID: _bundle, ...two } = FOUR;
    expect(() => readConfig(two)).toThrow(
      new Error(
        'APNs settings incomplete: TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID missing (set all of TILECAST_APNS_KEY_FILE, TILECAST_APNS_KEY_ID, TILECAST_APNS_TEAM_ID, TILECAST_APNS_BUNDLE_ID, or none)',
      ),
    );
    // An empty value counts as missing.
    expect(() => readConfig({ ...FOUR, TILECAST_APNS_KEY_FILE: '' })).toThrow(/^APNs settings incomplete: TILECAST_APNS_KEY_FILE missing \(/);
    for (const name of Object.keys(FOUR)) {
      const message = (() => {
        try {
          readConfig({ [name]: 'x' });
        } catch (error) {
          return (error as Error).message;
        }
        return 'no error';
      })();
      expect(message).toMatch(/^APNs settings incomplete: /);
      expect(message).not.toContain('\n');
      for (const other of Object.keys(FOUR)) expect(message.split(' missing')[0]!.includes(other)).toBe(other !== name);
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
    expect(() => readConfig({ ...FOUR, TILECAST_APNS_CA_FILE: '/tmp/ca.pem' })).toThrow(/^TILECAST_APNS_CA_FILE needs TILECAST_APNS_ORIGIN/);
  });
});
