import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { FcmServiceAccount } from '../service-account.js';

/** A service-account key file as Google's console writes it (the fields the transport reads, and the others). */
export interface TestServiceAccountFile extends FcmServiceAccount {
  type: 'service_account';
  private_key_id: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
}

/** A test service account: the key file (object and JSON text) and its public key for the double. */
export interface TestServiceAccount {
  serviceAccount: TestServiceAccountFile;
  /** `serviceAccount` as the file's text. */
  json: string;
  /** The public half of `private_key` (SPKI PEM): the double's `publicKey`. */
  publicKey: string;
}

/**
 * Makes a service account for tests: a fresh RSA-2048 key pair and the key file around it,
 * in Google's format. For tests and demos only: it reaches nothing of Google's.
 */
export function makeTestServiceAccount(options: { projectId?: string; clientEmail?: string } = {}): TestServiceAccount {
  const projectId = options.projectId ?? 'tilecast-test';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccount: TestServiceAccountFile = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: options.clientEmail ?? `firebase-adminsdk-test@${projectId}.iam.gserviceaccount.com`,
    client_id: String(100_000_000_000_000_000_000n + BigInt(randomBytes(4).readUInt32BE())),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return { serviceAccount, json: JSON.stringify(serviceAccount, null, 2), publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}
