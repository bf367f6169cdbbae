import { parse, serialize } from 'cookie';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The dashboard's cookies. `__Host-` names make the browser accept them only when Secure, for this host
 * alone and for every path. Decision: SameSite=Lax, so a link into the dashboard from chat or email (an
 * alert's "open the fix") arrives signed in; cross-site requests that change anything are stopped by the
 * CSRF token instead (csrfTokenOf), which a page of another site cannot read.
 */
export const SESSION_COOKIE = '__Host-zw_session';
/** Ties a sign-in to the browser that started it (the `state` sent to the identity provider). */
export const SIGN_IN_COOKIE = '__Host-zw_sign_in';
/** The header a cookie-authenticated request that changes something must carry. */
export const CSRF_HEADER = 'x-csrf-token';

export function cookieOf(request: IncomingMessage, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  return parse(header)[name];
}

function appendSetCookie(response: ServerResponse, cookie: string): void {
  const existing = response.getHeader('Set-Cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  response.setHeader('Set-Cookie', [...list, cookie]);
}

/** Sets an HttpOnly, Secure, SameSite=Lax cookie for the whole host; `maxAgeSeconds` 0 deletes it. */
export function setCookie(response: ServerResponse, name: string, value: string, maxAgeSeconds: number): void {
  appendSetCookie(
    response,
    serialize(name, value, { httpOnly: true, secure: true, sameSite: 'lax', path: '/', maxAge: maxAgeSeconds }),
  );
}

export function clearCookie(response: ServerResponse, name: string): void {
  setCookie(response, name, '', 0);
}

/**
 * The CSRF token of a session: an HMAC of a fixed label keyed by the session's secret token, so it is bound
 * to that session, needs no storage, and reveals nothing of the token. The dashboard reads it from
 * `GET /v1/me` (same-origin only) and sends it as X-CSRF-Token with every request that changes something.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('zonewise-csrf-v1').digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenOf(sessionToken));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
