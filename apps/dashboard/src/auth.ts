/**
 * Who the dashboard acts as. Today an API key typed on the sign-in page, kept in sessionStorage only
 * (gone when the tab closes, never in a URL or localStorage). Everything else asks this module for the
 * Authorization header, so another way of signing in (OIDC) replaces this file alone.
 */

const KEY_ITEM = 'zonewise.apiKey';
const REASON_ITEM = 'zonewise.signedOutBecause';

export type Role = 'viewer' | 'operator' | 'admin';

/** The caller as `GET /v1/me` answers: organization, how it signed in, role, and when its credentials expire. */
export interface Identity {
  organization: { id: string; slug: string; name: string };
  via: 'api_key' | 'sso' | 'bearer_token';
  role: Role;
  name: string;
  email: string | null;
  expiresAt: string | null;
  apiKey: { id: string; name: string; role: Role; expiresAt: string | null } | null;
}

type Listener = () => void;
const listeners = new Set<Listener>();

export function onAuthChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed(): void {
  for (const listener of listeners) listener();
}

export function authorization(): string | null {
  const key = sessionStorage.getItem(KEY_ITEM);
  return key ? `Bearer ${key}` : null;
}

export function isSignedIn(): boolean {
  return sessionStorage.getItem(KEY_ITEM) !== null;
}

/** Checks the key against the API (`GET /v1/me`) and keeps it only when the API accepts it. */
export async function signIn(apiKey: string): Promise<Identity> {
  const key = apiKey.trim();
  const response = await fetch('/v1/me', { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  if (!response.ok) {
    const problem = (await response.json().catch(() => null)) as { detail?: string } | null;
    throw new Error(problem?.detail ?? `the API answered ${response.status}`);
  }
  sessionStorage.setItem(KEY_ITEM, key);
  sessionStorage.removeItem(REASON_ITEM);
  changed();
  return (await response.json()) as Identity;
}

/** Forgets the key; `reason` is shown on the sign-in page (an expired or revoked key, or signing out). */
export function signOut(reason: string | null): void {
  sessionStorage.removeItem(KEY_ITEM);
  if (reason) sessionStorage.setItem(REASON_ITEM, reason);
  else sessionStorage.removeItem(REASON_ITEM);
  changed();
}

export function signedOutBecause(): string | null {
  return sessionStorage.getItem(REASON_ITEM);
}

export function isAdmin(identity: Identity | undefined): boolean {
  return identity?.role === 'admin';
}

/** Operators and admins: run reports, change traffic sources, prices, traffic values and alert rules. */
export function isOperator(identity: Identity | undefined): boolean {
  return identity?.role === 'operator' || identity?.role === 'admin';
}
