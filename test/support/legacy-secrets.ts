import { createCipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets sealed in the forms written before the keyring's version 2, written out here and frozen (no
 * production code writes them any more; libs/secrets/src/keyring.ts still reads them): AES-256-GCM under
 * one SHA-256 of the key's text, no associated data.
 */

/** `iv(12) ‖ tag(16) ‖ ciphertext`: how traffic sources' auth headers were stored under TRAFFIC_SOURCES_ENCRYPTION_KEY. */
export function sealedHeaderless(key: string, text: string): Uint8Array<ArrayBuffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(key, 'utf8').digest(), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body]));
}

/** Version 1, `0x01 ‖ id length ‖ id ‖ iv ‖ tag ‖ ciphertext`, under the key `id:key` of a keyring setting. */
export function sealedVersion1(ring: string, text: string): Uint8Array<ArrayBuffer> {
  const [id, key] = [ring.slice(0, ring.indexOf(':')), ring.slice(ring.indexOf(':') + 1)];
  const header = Buffer.concat([Buffer.from([1, Buffer.byteLength(id)]), Buffer.from(id, 'utf8')]);
  return new Uint8Array(Buffer.concat([header, sealedHeaderless(key, text)]));
}
