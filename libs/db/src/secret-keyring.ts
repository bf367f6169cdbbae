import type { SecretKeyring } from '@zw/reports';
import { openSecret, sealSecret } from './traffic-sources.js';

/**
 * Secrets at rest under rotatable keys: the same AES-256-GCM sealing as the traffic sources' auth
 * headers, with the id of the key written in front of the ciphertext, so a keyring can hold the current
 * key (which seals) and older ones (which still open what they sealed) while rows are re-encrypted.
 *
 * Sealed form: `0x01 ‖ length of key id (1 byte) ‖ key id (UTF-8) ‖ iv(12) ‖ tag(16) ‖ ciphertext`.
 */
const FORMAT_VERSION = 1;

/** Seals `text` with the keyring's current key. */
export function sealWithKeyring(keyring: SecretKeyring, text: string): Uint8Array<ArrayBuffer> {
  const id = Buffer.from(keyring.currentId, 'utf8');
  const body = sealSecret(text, keyring.keys.get(keyring.currentId)!);
  return new Uint8Array(Buffer.concat([Buffer.from([FORMAT_VERSION, id.length]), id, body]));
}

/** The id of the key that sealed these bytes, or null when they are not in the keyring format. */
export function sealedKeyId(sealed: Uint8Array): string | null {
  if (sealed.length < 2 || sealed[0] !== FORMAT_VERSION) return null;
  const length = sealed[1];
  if (sealed.length < 2 + length + 28) return null;
  return Buffer.from(sealed.subarray(2, 2 + length)).toString('utf8');
}

/** The secret back, or null when its key is not in the keyring or the bytes were tampered with. */
export function openWithKeyring(keyring: SecretKeyring, sealed: Uint8Array): string | null {
  const id = sealedKeyId(sealed);
  const key = id === null ? undefined : keyring.keys.get(id);
  if (key === undefined) return null;
  return openSecret(sealed.subarray(2 + sealed[1]), key);
}
