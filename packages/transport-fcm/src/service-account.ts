import { createPrivateKey, type KeyObject } from 'node:crypto';

/**
 * The fields of a Google service-account key file (the JSON a Firebase project's
 * "Service accounts" page downloads) that the transport uses. Other fields of the file
 * (`type`, `private_key_id`, `token_uri`, ...) may be present and are ignored: the token
 * endpoint is the `tokenOrigin` option's.
 */
export interface FcmServiceAccount {
  /** The Firebase project: sends go to `/v1/projects/<project_id>/messages:send`. */
  project_id: string;
  /** The service account: the assertion's `iss`. */
  client_email: string;
  /** Its RSA private key, PEM (PKCS#8, as in the file): signs the assertion (RS256). */
  private_key: string;
}

/** A service account checked and ready: its key parsed once. */
export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  key: KeyObject;
}

/** A project id as Google makes them (letters, digits, hyphens; older ones `domain:name`). */
const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9.:_-]*$/;

/**
 * Reads a service account: the parsed JSON object or its text. Throws an Error naming what
 * is wrong (never echoing the key) for anything that cannot sign or address a send.
 */
export function readServiceAccount(given: FcmServiceAccount | string): ServiceAccount {
  let account: unknown = given;
  if (typeof given === 'string') {
    try {
      account = JSON.parse(given);
    } catch {
      throw new Error('transport-fcm: serviceAccount is not JSON (the service-account key file from the Firebase console)');
    }
  }
  if (typeof account !== 'object' || account === null) throw new Error('transport-fcm: serviceAccount is not an object');
  const { project_id: projectId, client_email: clientEmail, private_key: pem } = account as Record<string, unknown>;
  if (typeof projectId !== 'string' || !PROJECT_ID.test(projectId)) throw new Error('transport-fcm: serviceAccount.project_id is missing or not a project id');
  if (typeof clientEmail !== 'string' || !clientEmail.includes('@')) throw new Error('transport-fcm: serviceAccount.client_email is missing or not an email');
  if (typeof pem !== 'string') throw new Error('transport-fcm: serviceAccount.private_key is missing');
  return { projectId, clientEmail, key: rsaKey(pem) };
}

function rsaKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('transport-fcm: serviceAccount.private_key is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new Error('transport-fcm: serviceAccount.private_key must be an RSA key (RS256)');
  return key;
}

/**
 * Checks a service-account key file (its text or parsed JSON) as `createFcmTransport`
 * would, and answers the fields it uses: for a server that reads the file at start and
 * wants a bad one to stop it there, before anything is opened. Throws an Error naming what
 * is wrong, never echoing the key.
 */
export function checkFcmServiceAccount(given: FcmServiceAccount | string): FcmServiceAccount {
  const { projectId, clientEmail, key } = readServiceAccount(given);
  return { project_id: projectId, client_email: clientEmail, private_key: key.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
