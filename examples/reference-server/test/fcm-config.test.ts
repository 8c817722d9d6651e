import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, readConfig } from '../src/config.js';
import { helpText } from '../src/help.js';

// The files must exist (they are checked at start); their content is checked when the server starts.
const dir = mkdtempSync(join(tmpdir(), 'tilecast-fcm-config-'));
const CREDENTIALS_FILE = join(dir, 'service-account.json');
const CA_FILE = join(dir, 'ca.pem');
writeFileSync(CREDENTIALS_FILE, '{}');
writeFileSync(CA_FILE, 'ca');

const ORIGINS = { TILECAST_FCM_ORIGIN: 'https://127.0.0.1:8443/', TILECAST_FCM_TOKEN_ORIGIN: 'https://127.0.0.1:8444' };

describe('FCM settings (docs/contract/android-fcm.md#fcm-reference-settings)', () => {
  it('none set: FCM delivery is off', () => {
    expect(readConfig({}).fcm).toBeNull();
    expect(readConfig({ TILECAST_FCM_CREDENTIALS_FILE: '' }).fcm).toBeNull();
  });

  it("the key file alone turns it on, with Google's hosts", () => {
    expect(readConfig({ TILECAST_FCM_CREDENTIALS_FILE: CREDENTIALS_FILE }).fcm).toEqual({
      credentialsFile: CREDENTIALS_FILE,
      origin: null,
      tokenOrigin: null,
      caFile: null,
    });
  });

  it('the optional settings: both origins and the CA file', () => {
    const config = readConfig({ TILECAST_FCM_CREDENTIALS_FILE: CREDENTIALS_FILE, ...ORIGINS, TILECAST_FCM_CA_FILE: CA_FILE });
    expect(config.fcm).toEqual({ credentialsFile: CREDENTIALS_FILE, origin: 'https://127.0.0.1:8443', tokenOrigin: 'https://127.0.0.1:8444', caFile: CA_FILE });
  });

  it('APNs and FCM together', () => {
    const apnsKey = join(dir, 'AuthKey_KEY1234567.p8');
    writeFileSync(apnsKey, 'key');
    const config = readConfig({
      TILECAST_APNS_KEY_FILE: apnsKey,
      TILECAST_APNS_KEY_ID: 'KEY1234567',
      TILECAST_APNS_TEAM_ID: 'TEAM123456',
      TILECAST_APNS_BUNDLE_ID: 'com.example.app',
      TILECAST_FCM_CREDENTIALS_FILE: CREDENTIALS_FILE,
    });
    expect(config.apns?.bundleId).toBe('com.example.app');
    expect(config.fcm?.credentialsFile).toBe(CREDENTIALS_FILE);
  });

  it('an optional setting without the key file is refused, not ignored', () => {
    expect(loadConfig({ ...ORIGINS, TILECAST_FCM_CA_FILE: CA_FILE }).problems).toEqual([
      'TILECAST_FCM_ORIGIN, TILECAST_FCM_TOKEN_ORIGIN, TILECAST_FCM_CA_FILE set but FCM is off: set TILECAST_FCM_CREDENTIALS_FILE to turn it on',
    ]);
  });

  it('the origins must be https origins; a CA file needs both', () => {
    for (const origin of ['http://127.0.0.1:8443', 'https://127.0.0.1:8443/v1/projects', 'fcm.googleapis.com']) {
      for (const name of ['TILECAST_FCM_ORIGIN', 'TILECAST_FCM_TOKEN_ORIGIN']) {
        expect(() => readConfig({ TILECAST_FCM_CREDENTIALS_FILE: CREDENTIALS_FILE, [name]: origin })).toThrow(
          `${name} must be an https origin such as https://127.0.0.1:8443, got "${origin}"`,
        );
      }
    }
    for (const origins of [{}, { TILECAST_FCM_ORIGIN: ORIGINS.TILECAST_FCM_ORIGIN }, { TILECAST_FCM_TOKEN_ORIGIN: ORIGINS.TILECAST_FCM_TOKEN_ORIGIN }]) {
      expect(() => readConfig({ TILECAST_FCM_CREDENTIALS_FILE: CREDENTIALS_FILE, ...origins, TILECAST_FCM_CA_FILE: CA_FILE })).toThrow(
        /^TILECAST_FCM_CA_FILE needs TILECAST_FCM_ORIGIN and TILECAST_FCM_TOKEN_ORIGIN/,
      );
    }
  });

  it('the files must exist', () => {
    const { problems } = loadConfig({ TILECAST_FCM_CREDENTIALS_FILE: join(dir, 'missing.json'), ...ORIGINS, TILECAST_FCM_CA_FILE: dir });
    expect(problems).toEqual([
      `TILECAST_FCM_CREDENTIALS_FILE names a file that cannot be read: ${join(dir, 'missing.json')} (no such file)`,
      `TILECAST_FCM_CA_FILE must name a file, ${dir} is a directory`,
    ]);
  });

  it('--help lists them', () => {
    const help = helpText();
    for (const name of ['TILECAST_FCM_CREDENTIALS_FILE', 'TILECAST_FCM_ORIGIN', 'TILECAST_FCM_TOKEN_ORIGIN', 'TILECAST_FCM_CA_FILE'])
      expect(help).toContain(`  ${name}\n`);
    expect(help).toMatch(/TILECAST_FCM_ORIGIN\n\s+FCM, tests and demos only/);
  });
});
