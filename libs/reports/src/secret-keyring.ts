/**
 * The text form of a keyring setting (REPORT_WEBHOOK_ENCRYPTION_KEYS): `id:key,id:key,…`, the first key
 * current (it seals), the others still opening what they sealed. The sealing itself is the database
 * library's (secrets at rest).
 */
export interface SecretKeyring {
  /** The key id new secrets are sealed with. */
  currentId: string;
  /** Every key that can open, by id (the current one included). */
  keys: ReadonlyMap<string, string>;
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
