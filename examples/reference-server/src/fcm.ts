import type { Logger, Storage } from '@tilecast/core';
import { checkFcmServiceAccount, createFcmTransport, fcmRegistryFrom, type FcmServiceAccount, type FcmTransport } from '@tilecast/transport-fcm';
import { ConfigError, type FcmConfig } from './config.js';
import { readSettingFile } from './setting-files.js';

/** Makes the FCM transport once the store is open: the registry reads the tokens the phones registered there. */
export type FcmFactory = (storage: Storage) => FcmTransport;

/**
 * Reads and checks the service-account key file and the CA file before anything is opened
 * (docs/contract/android-fcm.md#fcm-reference-settings), so that a wrong path or a file that
 * cannot sign stops the start with its setting's name, and making the transport later
 * (once the store is open) cannot fail.
 */
export async function prepareFcm(config: FcmConfig, logger: Logger): Promise<FcmFactory> {
  const serviceAccount = serviceAccountFrom(config.credentialsFile, await readSettingFile('TILECAST_FCM_CREDENTIALS_FILE', config.credentialsFile));
  const ca = config.caFile === null ? undefined : await readSettingFile('TILECAST_FCM_CA_FILE', config.caFile);
  if (config.origin !== null) logger.warn("FCM origin replaced: messages go to TILECAST_FCM_ORIGIN, not to Google's (tests only)", { origin: config.origin });
  if (config.tokenOrigin !== null) {
    logger.warn("FCM token origin replaced: access tokens come from TILECAST_FCM_TOKEN_ORIGIN, not from Google's (tests only)", { origin: config.tokenOrigin });
  }
  return (storage) =>
    createFcmTransport({
      serviceAccount,
      registry: fcmRegistryFrom(storage),
      logger,
      ...(config.origin === null ? {} : { origin: config.origin }),
      ...(config.tokenOrigin === null ? {} : { tokenOrigin: config.tokenOrigin }),
      ...(ca === undefined ? {} : { ca }),
    });
}

/**
 * The key file must be one the transport can sign with: the check's own words, the setting's
 * name and path in place of `serviceAccount` (`TILECAST_FCM_CREDENTIALS_FILE (path) is not
 * JSON (...)`, `... (path): private_key is missing`).
 */
function serviceAccountFrom(path: string, text: string): FcmServiceAccount {
  try {
    return checkFcmServiceAccount(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const named = `TILECAST_FCM_CREDENTIALS_FILE (${path})`;
    const field = /^transport-fcm: serviceAccount\.(.*)$/.exec(message);
    const whole = /^transport-fcm: serviceAccount (.*)$/.exec(message);
    throw new ConfigError([field !== null ? `${named}: ${field[1]}` : whole !== null ? `${named} ${whole[1]}` : `${named}: ${message}`]);
  }
}

/** What the banner says about FCM delivery. */
export function describeFcm(config: FcmConfig | null): string {
  if (config === null) return 'FCM delivery: off (set TILECAST_FCM_CREDENTIALS_FILE to turn it on)';
  return `FCM delivery: on, to ${config.origin ?? "Google's FCM host"}`;
}
