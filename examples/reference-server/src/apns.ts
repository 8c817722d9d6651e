import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { Logger, Storage } from '@tilecast/core';
import { apnsRegistryFrom, createApnsTransport, type ApnsTransport } from '@tilecast/transport-apns';
import { ConfigError, type ApnsConfig } from './config.js';
import { readSettingFile } from './setting-files.js';

/** Makes the APNs transport once the store is open: the registry reads the tokens the phones registered there. */
export type ApnsFactory = (storage: Storage) => ApnsTransport;

/**
 * Reads the `.p8` key and the CA file before anything is opened, so a wrong path stops the
 * start with its setting's name, and checks the key here so that making the transport
 * later (once the store is open) cannot fail.
 */
export async function prepareApns(config: ApnsConfig, logger: Logger): Promise<ApnsFactory> {
  const signingKey = signingKeyFrom(config.keyFile, await readSettingFile('TILECAST_APNS_KEY_FILE', config.keyFile));
  const ca = config.caFile === null ? undefined : await readSettingFile('TILECAST_APNS_CA_FILE', config.caFile);
  if (config.origin !== null) logger.warn('APNs origin replaced: pushes go to TILECAST_APNS_ORIGIN, not to Apple (tests only)', { origin: config.origin });
  // docs/contract/broadcast-channels.md#broadcast-reference-settings
  if (config.manageOrigin !== null) {
    logger.warn('APNs channel management origin replaced: channels are managed at TILECAST_APNS_MANAGE_ORIGIN, not at Apple (tests only)', {
      origin: config.manageOrigin,
    });
  }
  return (storage) =>
    createApnsTransport({
      teamId: config.teamId,
      keyId: config.keyId,
      bundleId: config.bundleId,
      signingKey,
      registry: apnsRegistryFrom(storage),
      attributesType: config.attributesType,
      logger,
      ...(config.origin === null ? {} : { origin: config.origin }),
      ...(config.manageOrigin === null ? {} : { manageOrigin: config.manageOrigin }),
      ...(ca === undefined ? {} : { ca }),
    });
}

/** APNs signs with ES256: the `.p8` must be an EC P-256 private key. */
function signingKeyFrom(path: string, pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ConfigError([`TILECAST_APNS_KEY_FILE (${path}) is not a PEM private key (the .p8 file from Apple)`]);
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new ConfigError([`TILECAST_APNS_KEY_FILE (${path}) is not an EC P-256 key (the .p8 file from Apple)`]);
  }
  return key;
}

/** What the banner says about APNs delivery. */
export function describeApns(config: ApnsConfig | null): string {
  if (config === null) return 'APNs delivery: off (set TILECAST_APNS_KEY_FILE, _KEY_ID, _TEAM_ID and _BUNDLE_ID to turn it on)';
  const where = config.origin ?? "Apple's production or sandbox host, as each device registered";
  return `APNs delivery: on, bundle ${config.bundleId}, to ${where}`;
}
