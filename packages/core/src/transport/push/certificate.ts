import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';

/**
 * A self-signed X.509 certificate, made with node:crypto alone (a P-256 key, ECDSA with
 * SHA-256, a few lines of DER): no openssl binary and no dependency. It is its own trust
 * anchor (pass `cert` as the client's CA), valid for `hosts`: IPv4 addresses and DNS
 * names (127.0.0.1 and localhost unless given). Good for loopback test servers, nothing else.
 */
export function selfSignedCertificate(
  commonName = 'Tilecast test double',
  days = 30,
  hosts: readonly string[] = ['127.0.0.1', 'localhost'],
): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  const now = Date.now();
  const altNames = seq(...hosts.map(altName));
  const extensions = seq(
    seq(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), octets(seq(tlv(0x01, Buffer.from([0xff]))))), // basicConstraints: CA (its own anchor)
    seq(oid('2.5.29.17'), octets(altNames)), // subjectAltName
  );
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive, and minimal DER (no leading zero byte)
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ecdsaWithSha256,
    name,
    seq(utcTime(now - 60 * 60_000), utcTime(now + days * 86_400_000)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const cert = new X509Certificate(der).toString();
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert };
}

/** A subjectAltName entry: an iPAddress for a dotted IPv4 address, else a dNSName. */
function altName(host: string): Buffer {
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return ipv4 ? tlv(0x87, Buffer.from(ipv4.slice(1).map(Number))) : tlv(0x82, Buffer.from(host, 'ascii'));
}

function tlv(tag: number, value: Buffer): Buffer {
  const length = value.length;
  const head =
    length < 0x80 ? Buffer.from([tag, length]) : length < 0x100 ? Buffer.from([tag, 0x81, length]) : Buffer.from([tag, 0x82, length >> 8, length & 0xff]);
  return Buffer.concat([head, value]);
}
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const octets = (value: Buffer) => tlv(0x04, value);
function integer(value: Buffer): Buffer {
  return tlv(0x02, value[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}
function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const part of rest) {
    const chunk = [part & 0x7f];
    for (let n = part >>> 7; n > 0; n >>>= 7) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}
function utcTime(ms: number): Buffer {
  const iso = new Date(ms).toISOString(); // 2026-01-02T03:04:05.678Z
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}
