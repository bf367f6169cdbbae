import { parseEnvironment, reportsEnvSchema, trafficSourceKeyringOf } from '@zw/queue';
import {
  isSealedCurrent,
  keyringProblem,
  openSealed,
  openWithKeyring,
  parseKeyring,
  sealedKeyId,
  sealWithKeyring,
} from '@zw/secrets';
import { describe, expect, it } from 'vitest';
import { sealedHeaderless, sealedVersion1 } from '../../../test/support/legacy-secrets.js';

/**
 * The one keyring every stored secret goes through (libs/secrets/src/keyring.ts): AES-256-GCM under an
 * HKDF-derived key, the key id and what the secret belongs to bound as associated data, several keys for
 * rotation, and the forms from before (version 1, the headerless traffic-source form) still read.
 */
const OLD = 'old-1:the-first-webhook-key-0001';
const NEW = 'new-2:the-second-webhook-key-002';
const TRAFFIC_KEY = 'a-traffic-sources-key-from-before';

describe('the keyring', () => {
  it('seals with the current key, names it, and opens with any key of the ring', () => {
    const oldRing = parseKeyring(OLD);
    const rotated = parseKeyring(`${NEW},${OLD}`);
    const sealed = sealWithKeyring(oldRing, 'zws_secret-value');
    expect(Buffer.from(sealed).toString('latin1')).not.toContain('zws_secret-value');
    expect(sealedKeyId(sealed)).toBe('old-1');
    expect(openWithKeyring(oldRing, sealed)).toBe('zws_secret-value');
    expect(openWithKeyring(rotated, sealed)).toBe('zws_secret-value');
    expect(sealedKeyId(sealWithKeyring(rotated, 'x'))).toBe('new-2');
    // Without its key, or tampered with: nothing.
    expect(openWithKeyring(parseKeyring(NEW), sealed)).toBeNull();
    const tampered = new Uint8Array(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(openWithKeyring(oldRing, tampered)).toBeNull();
    // The same id with another key does not open it either.
    expect(openWithKeyring(parseKeyring('old-1:some-other-key-material'), sealed)).toBeNull();
  });

  it('binds what the secret is for: sealed for one context, it opens in no other', () => {
    const ring = parseKeyring(OLD);
    const sealed = sealWithKeyring(ring, 'client-secret', 'sso-config.client-secret:org-a');
    expect(sealed[0]).toBe(2); // version 2: HKDF-derived key, associated data
    expect(openWithKeyring(ring, sealed, 'sso-config.client-secret:org-a')).toBe('client-secret');
    expect(openWithKeyring(ring, sealed, 'sso-config.client-secret:org-b')).toBeNull();
    expect(openWithKeyring(ring, sealed)).toBeNull();
    // The header is bound too: the same bytes under another key id do not open.
    const renamed = new Uint8Array(sealed);
    renamed[2] = 'O'.charCodeAt(0);
    expect(
      openWithKeyring(parseKeyring(`Old-1:${OLD.slice(6)}`), renamed, 'sso-config.client-secret:org-a'),
    ).toBeNull();
  });

  it('still opens secrets sealed in version 1, whatever the context', () => {
    const old = sealedVersion1(OLD, 'zws_from-before');
    expect(sealedKeyId(old)).toBe('old-1');
    expect(openWithKeyring(parseKeyring(`${NEW},${OLD}`), old, 'report-schedule.webhook-secret')).toBe(
      'zws_from-before',
    );
    expect(openWithKeyring(parseKeyring(NEW), old)).toBeNull();
  });

  it('refuses a malformed setting at boot, naming the problem but never a key', () => {
    expect(keyringProblem('k1:short')).toMatch(/at least 16 characters/);
    expect(keyringProblem('no-colon-here-but-long-enough')).toBe('entry 1 is not id:key');
    expect(keyringProblem(`${OLD},${OLD}`)).toMatch(/appears twice/);
    expect(() => parseEnvironment(reportsEnvSchema, { REPORT_WEBHOOK_ENCRYPTION_KEYS: 'k1:short' })).toThrow(
      /REPORT_WEBHOOK_ENCRYPTION_KEYS: key "k1" must be at least 16 characters/,
    );
    expect(parseEnvironment(reportsEnvSchema, {}).REPORT_WEBHOOK_ENCRYPTION_KEYS).toBeUndefined();
  });
});

describe('why a secret does not open', () => {
  const context = 'traffic-source.auth-header:cluster-a';

  it('names a key the keyring no longer holds, and the keys it holds', () => {
    const sealed = sealWithKeyring(parseKeyring(OLD), 'Bearer t0ken', context);
    expect(() => openSealed(parseKeyring(NEW), sealed, context)).toThrow(
      'sealed with key "old-1", which the keyring does not hold (it holds "new-2")',
    );
  });

  it('says the bytes do not open under their key: tampered, another owner, or the key text changed', () => {
    const ring = parseKeyring(OLD);
    const sealed = sealWithKeyring(ring, 'Bearer t0ken', context);
    const tampered = new Uint8Array(sealed);
    tampered[tampered.length - 3] ^= 0x40;
    const refused = /sealed with key "old-1", but it does not open with that key/;
    expect(() => openSealed(ring, tampered, context)).toThrow(refused);
    expect(() => openSealed(ring, sealed, 'traffic-source.auth-header:cluster-b')).toThrow(refused);
    expect(() => openSealed(parseKeyring('old-1:another-key-text-entirely'), sealed, context)).toThrow(refused);
    expect(openSealed(ring, sealed, context)).toBe('Bearer t0ken');
  });

  it('says bytes in no keyring form need the key from before the keyring', () => {
    const headerless = sealedHeaderless(TRAFFIC_KEY, 'Bearer old');
    expect(() => openSealed(parseKeyring(NEW), headerless)).toThrow(/not in a keyring form, and no key/);
    const wrongOld = { ...parseKeyring(NEW), headerlessKey: 'not-the-traffic-key-at-all' };
    expect(() => openSealed(wrongOld, headerless)).toThrow(/does not open with the key of the form from before/);
  });
});

describe('rotation and the forms from before', () => {
  it('a rotated ring seals under its first key, opens under every key, and says what to re-seal', () => {
    const before = parseKeyring(OLD);
    const rotated = parseKeyring(`${NEW},${OLD}`);
    const old = sealWithKeyring(before, 'secret', 'ctx');
    expect(isSealedCurrent(before, old)).toBe(true);
    expect(isSealedCurrent(rotated, old)).toBe(false);
    const resealed = sealWithKeyring(rotated, openSealed(rotated, old, 'ctx'), 'ctx');
    expect(sealedKeyId(resealed)).toBe('new-2');
    expect(isSealedCurrent(rotated, resealed)).toBe(true);
    // Once every row is re-sealed, the old key can go.
    expect(openSealed(parseKeyring(NEW), resealed, 'ctx')).toBe('secret');
    expect(isSealedCurrent(rotated, sealedVersion1(NEW, 'secret'))).toBe(false);
  });

  it('reads the headerless form with TRAFFIC_SOURCES_ENCRYPTION_KEY, which joins the deployment keyring', () => {
    const env = { SECRET_ENCRYPTION_KEYS: NEW, TRAFFIC_SOURCES_ENCRYPTION_KEY: TRAFFIC_KEY };
    const ring = trafficSourceKeyringOf(env)!;
    expect(ring.currentId).toBe('new-2');
    expect([...ring.keys.keys()].sort()).toEqual(['new-2', 'traffic-sources']);
    const headerless = sealedHeaderless(TRAFFIC_KEY, 'Bearer from-before');
    expect(isSealedCurrent(ring, headerless)).toBe(false);
    expect(openSealed(ring, headerless, 'traffic-source.auth-header:any')).toBe('Bearer from-before');
    // Alone, the old setting is the traffic sources' current key (in the keyring's form now), and what
    // it sealed still opens once SECRET_ENCRYPTION_KEYS is set.
    const alone = trafficSourceKeyringOf({ TRAFFIC_SOURCES_ENCRYPTION_KEY: TRAFFIC_KEY })!;
    const sealed = sealWithKeyring(alone, 'Bearer new', 'ctx');
    expect(sealedKeyId(sealed)).toBe('traffic-sources');
    expect(openSealed(ring, sealed, 'ctx')).toBe('Bearer new');
    expect(trafficSourceKeyringOf({})).toBeNull();
    expect(trafficSourceKeyringOf({ SECRET_ENCRYPTION_KEYS: NEW })?.headerlessKey).toBeUndefined();
  });
});
