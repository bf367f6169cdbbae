/**
 * Who the dashboard acts as: a person signed in through their organization's identity provider (the
 * API's HttpOnly session cookie, which this code never sees, plus the session's CSRF token, kept in
 * memory), or an API key typed on the sign-in page (kept in sessionStorage only: gone when the tab
 * closes, never in a URL or localStorage). Everything else asks this module for the headers to send.
 */
import type { SessionState } from './types';

const KEY_ITEM = 'zonewise.apiKey';
const REASON_ITEM = 'zonewise.signedOutBecause';
/** The organization last signed in to through SSO (not a secret): the sign-in page offers it again. */
const ORGANIZATION_ITEM = 'zonewise.organization';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

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
  session: { id: string; expiresAt: string; csrfToken: string } | null;
}

type Listener = () => void;
const listeners = new Set<Listener>();
/** The session's CSRF token while signed in through SSO; null otherwise. */
let csrfToken: string | null = null;
/** Whether the API was asked if the browser holds a session (once per page load). */
let sessionChecked = false;

export function onAuthChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed(): void {
  for (const listener of listeners) listener();
}

function apiKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

/** The Authorization header of API-key sign-in (null when signed in through SSO, or not at all). */
export function authorization(): string | null {
  const key = apiKey();
  return key ? `Bearer ${key}` : null;
}

/** The headers a request with this method carries: the API key, or for SSO the CSRF token of what changes something. */
export function authHeaders(method = 'GET'): Record<string, string> {
  const key = apiKey();
  if (key) return { authorization: `Bearer ${key}` };
  if (csrfToken && !SAFE_METHODS.has(method.toUpperCase())) return { 'x-csrf-token': csrfToken };
  return {};
}

export function isSignedIn(): boolean {
  return apiKey() !== null || csrfToken !== null;
}

/** Whether the dashboard knows yet if it is signed in (a session cookie is only known by asking the API). */
export function isAuthKnown(): boolean {
  return apiKey() !== null || sessionChecked;
}

/** Asks the API whether this browser holds a session (its cookie is HttpOnly); once per page load. */
export async function checkSession(): Promise<void> {
  if (sessionChecked) return;
  try {
    const response = await fetch('/v1/auth/session', { headers: { accept: 'application/json' } });
    if (response.ok) {
      const state = (await response.json()) as SessionState;
      if (state.signedIn) csrfToken = state.csrfToken;
      else if (state.reason && !sessionStorage.getItem(REASON_ITEM)) sessionStorage.setItem(REASON_ITEM, state.reason);
    }
  } catch {
    // no answer: the sign-in page says what it can
  } finally {
    sessionChecked = true;
    changed();
  }
}

/** Checks the key against the API (`GET /v1/me`) and keeps it only when the API accepts it. */
export async function signIn(key: string): Promise<Identity> {
  const trimmed = key.trim();
  const response = await fetch('/v1/me', {
    headers: { authorization: `Bearer ${trimmed}`, accept: 'application/json' },
  });
  if (!response.ok) {
    const problem = (await response.json().catch(() => null)) as { detail?: string } | null;
    throw new Error(problem?.detail ?? `the API answered ${response.status}`);
  }
  sessionStorage.setItem(KEY_ITEM, trimmed);
  sessionStorage.removeItem(REASON_ITEM);
  changed();
  return (await response.json()) as Identity;
}

/** Where the browser goes to sign in through the organization's identity provider. */
export function singleSignOnUrl(organizationSlug: string, returnTo: string): string {
  localStorage.setItem(ORGANIZATION_ITEM, organizationSlug);
  sessionStorage.removeItem(REASON_ITEM);
  return `/v1/auth/sso/${encodeURIComponent(organizationSlug)}/start?returnTo=${encodeURIComponent(returnTo)}`;
}

export function lastOrganization(): string {
  return localStorage.getItem(ORGANIZATION_ITEM) ?? '';
}

/**
 * Forgets the credentials here; `reason` is shown on the sign-in page (an expired or revoked key or
 * session, or signing out). A session the API already ended needs nothing more; see endSession.
 */
export function signOut(reason: string | null): void {
  sessionStorage.removeItem(KEY_ITEM);
  csrfToken = null;
  if (reason) sessionStorage.setItem(REASON_ITEM, reason);
  else sessionStorage.removeItem(REASON_ITEM);
  changed();
}

/** The person's "Sign out": ends the SSO session on the API (its cookie is cleared there), then here. */
export async function endSession(): Promise<void> {
  if (csrfToken) {
    await fetch('/v1/auth/sign-out', { method: 'POST', headers: { 'x-csrf-token': csrfToken } }).catch(() => null);
  }
  signOut(null);
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
