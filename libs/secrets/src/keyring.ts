import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The deployment's keyring for every secret a tenant stores (SECRET_ENCRYPTION_KEYS, or its older name
 * REPORT_WEBHOOK_ENCRYPTION_KEYS): `id:key,id:key,…`, the first key current (it seals), the others still
 * opening what they sealed while rows are re-encrypted. This module alone parses the setting and
 * seals/opens: report webhook secrets, SSO client secrets, alert channel addresses and secrets, and
 * traffic sources' auth headers all go through it.
 *
 * Sealed form (version 2, written now):
 *   `0x02 ‖ length of key id (1 byte) ‖ key id (UTF-8) ‖ iv(12) ‖ tag(16) ‖ ciphertext`
 * AES-256-GCM under a key derived from the key's text with HKDF-SHA-256 (RFC 5869, node:crypto
 * `hkdfSync`), and the header bytes plus the caller's context (what the secret belongs to and what it is
 * for, e.g. `sso-config:<organization id>`) bound as associated data: a sealed secret copied into another
 * row or column no longer opens.
 *
 * Read only, for rows sealed before version 2 (re-sealing writes version 2):
 * - version 1: the same layout with `0x01`, the key one SHA-256 of the key's text, no associated data;
 * - headerless: `iv(12) ‖ tag(16) ‖ ciphertext` under one SHA-256 of {@link SecretKeyring.headerlessKey}
 *   (traffic sources' auth headers under TRAFFIC_SOURCES_ENCRYPTION_KEY). Its first byte is random, so it
 *   is tried when the bytes do not open as a versioned form; GCM's tag tells a wrong guess.
 */
export interface SecretKeyring {
  /** The key id new secrets are sealed with. */
  currentId: string;
  /** Every key that can open, by id (the current one included). */
  keys: ReadonlyMap<string, string>;
  /** The key text that opens the headerless form, when this keyring is to read it; it never seals. */
  headerlessKey?: string;
}

/** Why a sealed secret does not open: what {@link openSealed} throws. */
export class SealedSecretError extends Error {
  override name = 'SealedSecretError';
}

/** Why a keyring setting is refused, or null. Form: `id:key,id:key,…`, the first is current. */
export function keyringProblem(text: string): string | null {
  const entries = text.split(',').map((entry) => entry.trim());
  const ids = new Set<string>();
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon);
    const key = entry.slice(colon + 1);
    if (colon <= 0) return `entry ${ids.size + 1} is not id:key`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) return `key id "${id}" must be 1–64 letters, digits, _ . -`;
    if (key.length < 16) return `key "${id}" must be at least 16 characters`;
    if (ids.has(id)) return `key id "${id}" appears twice`;
    ids.add(id);
  }
  return null;
}

/** Parses `id:key,id:key,…` (checked by {@link keyringProblem}); the first key is the current one. */
export function parseKeyring(text: string): SecretKeyring {
  const problem = keyringProblem(text);
  if (problem) throw new Error(`invalid keyring: ${problem}`);
  const keys = new Map<string, string>();
  for (const entry of text.split(',').map((part) => part.trim())) {
    const colon = entry.indexOf(':');
    keys.set(entry.slice(0, colon), entry.slice(colon + 1));
  }
  return { currentId: keys.keys().next().value!, keys };
}

const LEGACY_VERSION = 1;
const VERSION = 2;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = 'zonewise secret keyring';
const HKDF_INFO = 'aes-256-gcm v2';

/** Seals `text` with the keyring's current key, bound to `context` (what the secret belongs to and is for). */
export function sealWithKeyring(keyring: SecretKeyring, text: string, context = ''): Uint8Array<ArrayBuffer> {
  const id = Buffer.from(keyring.currentId, 'utf8');
  const header = Buffer.concat([Buffer.from([VERSION, id.length]), id]);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', derivedKey(keyring.keys.get(keyring.currentId)!), iv);
  cipher.setAAD(associatedData(header, context));
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return new Uint8Array(Buffer.concat([header, iv, cipher.getAuthTag(), body]));
}

/** The id of the key that sealed these bytes, or null when they are not in a versioned keyring form. */
export function sealedKeyId(sealed: Uint8Array): string | null {
  if (sealed.length < 2 || (sealed[0] !== VERSION && sealed[0] !== LEGACY_VERSION)) return null;
  const length = sealed[1];
  if (sealed.length < 2 + length + IV_BYTES + TAG_BYTES) return null;
  return Buffer.from(sealed.subarray(2, 2 + length)).toString('utf8');
}

/**
 * Whether these bytes are in the form {@link sealWithKeyring} writes now, under the current key: when not
 * (version 1, headerless, or a retired key), the caller re-seals the secret on its next write.
 */
export function isSealedCurrent(keyring: SecretKeyring, sealed: Uint8Array): boolean {
  return sealed[0] === VERSION && sealedKeyId(sealed) === keyring.currentId;
}

/**
 * The secret back, or a {@link SealedSecretError} saying why not: its key id is not in the keyring, or the
 * bytes do not open under that key (tampered with, sealed for another `context`, or the key's text changed).
 */
export function openSealed(keyring: SecretKeyring, sealed: Uint8Array, context = ''): string {
  const bytes = Buffer.from(sealed);
  const id = sealedKeyId(bytes);
  const key = id === null ? undefined : keyring.keys.get(id);
  const opened = key === undefined ? null : openVersioned(bytes, key, context);
  if (opened !== null) return opened;
  const headerless =
    keyring.headerlessKey === undefined ? null : openGcm(legacyKey(keyring.headerlessKey), bytes, null);
  if (headerless !== null) return headerless;
  if (key !== undefined) {
    throw new SealedSecretError(
      `sealed with key "${id}", but it does not open with that key: the bytes were changed, were sealed for something else, or the key's text changed`,
    );
  }
  if (id !== null) {
    throw new SealedSecretError(
      `sealed with key "${id}", which the keyring does not hold (it holds ${[...keyring.keys.keys()].map((held) => `"${held}"`).join(', ')})`,
    );
  }
  throw new SealedSecretError(
    keyring.headerlessKey === undefined
      ? 'not in a keyring form, and no key for the form from before the keyring is set'
      : 'not in a keyring form, and it does not open with the key of the form from before the keyring',
  );
}

/** {@link openSealed}, with null instead of the reason. */
export function openWithKeyring(keyring: SecretKeyring, sealed: Uint8Array, context = ''): string | null {
  try {
    return openSealed(keyring, sealed, context);
  } catch (error) {
    if (error instanceof SealedSecretError) return null;
    throw error;
  }
}

/** A versioned form (`bytes[0]` is 1 or 2) opened with `key`; null when the tag does not match. */
function openVersioned(bytes: Buffer, key: string, context: string): string | null {
  const header = bytes.subarray(0, 2 + bytes[1]);
  const body = bytes.subarray(header.length);
  return bytes[0] === VERSION
    ? openGcm(derivedKey(key), body, associatedData(header, context))
    : openGcm(legacyKey(key), body, null);
}

/** Opens `iv ‖ tag ‖ ciphertext`; null when the tag does not match. */
function openGcm(key: Buffer, body: Buffer, aad: Buffer | null): string | null {
  if (body.length < IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES));
    if (aad) decipher.setAAD(aad);
    decipher.setAuthTag(body.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(body.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

function associatedData(header: Buffer, context: string): Buffer {
  return Buffer.concat([header, Buffer.from(context, 'utf8')]);
}

function derivedKey(key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), HKDF_SALT, HKDF_INFO, 32));
}

/** The key before version 2: one SHA-256 of the key's text (kept to open rows sealed before). */
function legacyKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}
