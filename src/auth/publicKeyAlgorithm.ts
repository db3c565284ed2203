import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * The one JWT algorithm a PEM public key may verify: RS256 for an RSA key, ES256 for a P-256 key.
 * Null for anything else (not a key, another curve, another key type).
 */
export function publicKeyAlgorithm(pem: string): { key: KeyObject; algorithm: 'RS256' | 'ES256' } | null {
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType === 'rsa') return { key, algorithm: 'RS256' };
    if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return { key, algorithm: 'ES256' };
    return null;
  } catch {
    return null;
  }
}
