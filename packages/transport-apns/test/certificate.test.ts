import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '@tilecast/transport-apns/test-double';

describe('APNs test double: self-signed certificate', () => {
  it('is a valid, self-signed certificate for 127.0.0.1 and localhost, every time', () => {
    // Random serials once made a non-minimal DER INTEGER about one time in 128.
    for (let i = 0; i < 400; i++) {
      const { cert } = selfSignedCertificate();
      const x509 = new X509Certificate(cert);
      expect(x509.verify(x509.publicKey)).toBe(true);
      expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
      expect(x509.checkHost('localhost')).toBe('localhost');
    }
  });
});
