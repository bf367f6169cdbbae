import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CookieJar,
  signInThroughProvider,
  startIdentityProvider,
  type TestIdentityProvider,
} from '../../../test/support/oidc-provider.js';
import {
  apiClient,
  createTenant,
  postGraphQL,
  type QueryStack,
  startQueryStack,
  type Tenant,
} from '../../../test/support/query-api.js';
import { ProblemSchema } from '../src/http/schemas.js';

/**
 * Single sign-on against a real OpenID Connect provider run in this process (oidc-provider): people sign
 * in with authorization code + PKCE through the provider's own login page, their groups map to roles, the
 * session lives in Postgres behind an HttpOnly cookie with a CSRF token for what changes something;
 * programs present the provider's JWTs, checked against its keys.
 */

let stack: QueryStack;
let tenant: Tenant;
let idp: TestIdentityProvider;
const SLUG = 'sso-acme';

const ACCOUNTS = {
  alice: { email: 'alice@acme.test', name: 'Alice Admin', groups: ['zw-admins', 'everyone'] },
  bob: { email: 'bob@acme.test', name: 'Bob Ops', groups: ['zw-ops'] },
  carol: { email: 'carol@acme.test', name: 'Carol', groups: ['everyone'] },
  dave: { email: 'dave@acme.test', name: 'Dave', groups: [] },
};

const SETTINGS = () => ({
  issuer: idp.issuer,
  clientId: idp.clientId,
  clientSecret: idp.clientSecret,
  audience: idp.audience,
  groupsClaim: 'groups',
  roleMappings: [
    { group: 'zw-admins', role: 'admin' },
    { group: 'zw-ops', role: 'operator' },
    { group: 'everyone', role: 'viewer' },
  ],
  defaultRole: null,
});

/** A client of the API acting as a browser holding this jar's cookies (and, for writes, the CSRF token). */
function browser(jar: CookieJar, csrfToken?: string) {
  return async (method: string, path: string, body?: unknown) => {
    const url = `${stack.url}${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        cookie: jar.header(url),
        ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    jar.store(url, response);
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };
}

async function signedIn(login: keyof typeof ACCOUNTS) {
  const { location, jar } = await signInThroughProvider(stack.url, SLUG, login, new CookieJar(), '/reports');
  expect(location).toBe('/reports');
  const me = await browser(jar)('GET', '/v1/me');
  expect(me.status).toBe(200);
  return { jar, me: me.body, call: browser(jar, me.body.session.csrfToken) };
}

beforeAll(async () => {
  stack = await startQueryStack('sso', { SSO_ALLOW_PRIVATE_ISSUERS: 'true', SESSION_CACHE_MS: '0' });
  tenant = await createTenant(stack.prisma, SLUG);
  idp = await startIdentityProvider([`${stack.url}/v1/auth/sso/callback`], ACCOUNTS);
});

afterAll(async () => {
  await idp?.stop();
  await stack?.stop();
});

describe('SSO settings', () => {
  it('checks the provider before saving, never shows the client secret, and names the redirect and sign-in URLs', async () => {
    const admin = apiClient(stack.url, tenant.adminKey);
    const unreachable = await admin.put('/v1/sso', { ...SETTINGS(), issuer: 'http://127.0.0.1:9/nothing' });
    expect(unreachable.status).toBe(400);
    expect(ProblemSchema.parse(unreachable.body).detail).toMatch(/body field "issuer": its discovery document/);
    expect((await admin.get('/v1/sso')).body.configured).toBe(false);

    const saved = await admin.put('/v1/sso', SETTINGS());
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      configured: true,
      settings: { issuer: idp.issuer, clientId: idp.clientId, hasClientSecret: true, audience: idp.audience },
      redirectUri: `${stack.url}/v1/auth/sso/callback`,
      signInUrl: `${stack.url}/sign-in/${SLUG}`,
    });
    expect(JSON.stringify(saved.body)).not.toContain(idp.clientSecret);
    const log = await admin.get('/v1/audit-log?action=sso.update');
    expect(log.body.entries[0].details).toMatchObject({ issuer: idp.issuer, clientSecretChanged: true });
    expect(JSON.stringify(log.body)).not.toContain(idp.clientSecret);
  });
});

describe('people signing in (authorization code + PKCE)', () => {
  it('signs a person in through the provider: an HttpOnly, Secure, SameSite session cookie and their role from their groups', async () => {
    const url = `${stack.url}/v1/auth/sso/${SLUG}/start`;
    const started = await fetch(url, { redirect: 'manual' });
    expect(started.status).toBe(303);
    const authorization = new URL(started.headers.get('location')!);
    expect(authorization.origin).toBe(idp.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorization.searchParams.get('nonce')).toBeTruthy();
    expect(started.headers.getSetCookie()[0]).toMatch(
      /^__Host-zw_sign_in=.+; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );

    const { jar, me } = await signedIn('alice');
    expect(jar.get(stack.url, '__Host-zw_session')).toMatch(/^[\w-]{43}$/);
    expect(me).toMatchObject({
      via: 'sso',
      role: 'admin',
      name: 'Alice Admin',
      subject: 'alice',
      email: 'alice@acme.test',
      organization: { slug: SLUG },
      apiKey: null,
    });
    expect(me.expiresAt).toBe(me.session.expiresAt);
    expect(Date.parse(me.expiresAt) - Date.now()).toBeGreaterThan(7.9 * 3600_000);
  });

  it('maps groups to roles: the strongest mapped group wins; no mapped group and no default role cannot sign in', async () => {
    expect((await signedIn('bob')).me.role).toBe('operator');
    expect((await signedIn('carol')).me.role).toBe('viewer');
    const refused = await signInThroughProvider(stack.url, SLUG, 'dave');
    const back = new URL(refused.location, stack.url);
    expect(back.pathname).toBe(`/sign-in/${SLUG}`);
    expect(back.searchParams.get('error')).toMatch(/your groups \(none\) give you no role/);
    expect(refused.jar.get(stack.url, '__Host-zw_session')).toBeUndefined();

    const admin = apiClient(stack.url, tenant.adminKey);
    await admin.put('/v1/sso', { ...SETTINGS(), clientSecret: undefined, defaultRole: 'viewer' });
    const { location, jar } = await signInThroughProvider(stack.url, SLUG, 'dave');
    expect(location).toBe('/');
    expect((await browser(jar)('GET', '/v1/me')).body.role).toBe('viewer');
    await admin.put('/v1/sso', { ...SETTINGS(), clientSecret: undefined });
  });

  it('needs the CSRF token for what a cookie-authenticated request changes, and audits the person', async () => {
    const { jar, call } = await signedIn('alice');
    const withoutToken = await browser(jar)('POST', '/v1/clusters', { name: 'no-token' });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body.detail).toMatch(/CSRF token in x-csrf-token/);
    const wrongToken = await browser(jar, 'not-the-token')('POST', '/v1/clusters', { name: 'no-token' });
    expect(wrongToken.status).toBe(403);
    const graphql = await browser(jar)('POST', '/graphql', { query: '{ fleet { clusters { name } } }' });
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const created = await call('POST', '/v1/clusters', { name: 'made-by-alice' });
    expect(created.status).toBe(201);
    expect((await call('POST', '/graphql', { query: '{ fleet { clusters { name } } }' })).body.data).toBeTruthy();
    const log = await apiClient(stack.url, tenant.adminKey).get('/v1/audit-log?action=cluster.create');
    expect(log.body.entries[0].actor).toMatchObject({
      type: 'sso',
      keyId: null,
      name: 'Alice Admin',
      subject: 'alice',
      email: 'alice@acme.test',
      role: 'admin',
    });
  });

  it('enforces the role of a person on REST, GraphQL and live events', async () => {
    const { call, jar } = await signedIn('carol');
    expect((await call('POST', '/v1/clusters', { name: 'nope' })).status).toBe(403);
    const detail = (await call('POST', '/v1/clusters', { name: 'nope' })).body.detail;
    expect(detail).toBe('this operation needs the "admin" role; you have "viewer"');
    const audit = await call('POST', '/graphql', { query: '{ auditLog { nodes { id } } }' });
    expect(audit.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const controller = new AbortController();
    const events = await fetch(`${stack.url}/v1/events`, {
      headers: { cookie: jar.header(stack.url) },
      signal: controller.signal,
    });
    expect(events.status).toBe(200);
    controller.abort();
  });

  it('tells a browser whether it holds a session without a 401, and its CSRF token when it does', async () => {
    const none = await fetch(`${stack.url}/v1/auth/session`);
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ signedIn: false, expiresAt: null, csrfToken: null, reason: null });
    const { jar, me } = await signedIn('carol');
    const held = await browser(jar)('GET', '/v1/auth/session');
    expect(held.body).toEqual({
      signedIn: true,
      expiresAt: me.expiresAt,
      csrfToken: me.session.csrfToken,
      reason: null,
    });
    const forged = await fetch(`${stack.url}/v1/auth/session`, { headers: { cookie: '__Host-zw_session=forged' } });
    expect(((await forged.json()) as { reason: string }).reason).toMatch(/unknown/);
  });

  it('signs out: the session ends on the server (the cookie alone no longer works) and the cookie is cleared', async () => {
    const { jar, call } = await signedIn('bob');
    const cookie = jar.header(stack.url);
    const out = await call('POST', '/v1/auth/sign-out');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^__Host-zw_session=; Max-Age=0/);
    const replayed = await fetch(`${stack.url}/v1/me`, { headers: { cookie } });
    expect(replayed.status).toBe(401);
    expect(((await replayed.json()) as { detail: string }).detail).toMatch(/you were signed out/);
    const keyed = await apiClient(stack.url, tenant.adminKey).post('/v1/auth/sign-out');
    expect(keyed.status).toBe(400);
  });

  it('ends a session at its expiry, saying so', async () => {
    const { jar, me } = await signedIn('carol');
    await stack.prisma.session.update({
      where: { id: me.session.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await browser(jar)('GET', '/v1/me');
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ signIn: true });
    expect(expired.body.detail).toMatch(/your session expired at .*; sign in again/);
  });

  it('refuses a callback from another browser, a replayed one, and sends every refusal back to the sign-in page', async () => {
    const started = await fetch(`${stack.url}/v1/auth/sso/${SLUG}/start`, { redirect: 'manual' });
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const foreign = await fetch(`${stack.url}/v1/auth/sso/callback?code=x&state=${state}`, { redirect: 'manual' });
    expect(foreign.status).toBe(303);
    expect(new URL(foreign.headers.get('location')!, stack.url).searchParams.get('error')).toMatch(
      /not started in this browser/,
    );
    const unknown = await fetch(`${stack.url}/v1/auth/sso/nobody-here/start`, { redirect: 'manual' });
    expect(unknown.headers.get('location')).toMatch(/^\/sign-in\/nobody-here\?error=.*single\+sign-on/);
    const outside = await signInThroughProvider(stack.url, SLUG, 'carol', new CookieJar(), '//evil.example/x');
    expect(outside.location).toBe('/');
  });

  it('lets an admin see members, sign one out everywhere and disable them', async () => {
    const bob = await signedIn('bob');
    const admin = apiClient(stack.url, tenant.adminKey);
    const members = (await admin.get('/v1/members')).body.members as { id: string; subject: string; role: string }[];
    expect(members.map((member) => member.subject)).toEqual(expect.arrayContaining(['alice', 'bob', 'carol']));
    const bobMember = members.find((member) => member.subject === 'bob')!;
    expect(bobMember.role).toBe('operator');
    const other = await createTenant(stack.prisma, 'sso-other');
    const stranger = apiClient(stack.url, other.adminKey);
    expect((await stranger.get('/v1/members')).body.members).toEqual([]);
    expect((await stranger.patch(`/v1/members/${bobMember.id}`, { disabled: true })).status).toBe(404);
    expect((await stranger.delete(`/v1/members/${bobMember.id}/sessions`)).status).toBe(404);
    expect((await admin.patch(`/v1/members/${bobMember.id}`, { disabled: true })).status).toBe(200);
    expect((await browser(bob.jar)('GET', '/v1/me')).body.detail).toMatch(/disabled your membership/);
    const again = await signInThroughProvider(stack.url, SLUG, 'bob');
    expect(new URL(again.location, stack.url).searchParams.get('error')).toMatch(/disabled your membership/);
    expect((await admin.patch(`/v1/members/${bobMember.id}`, { disabled: false })).status).toBe(200);
    const back = await signedIn('bob');
    expect((await admin.delete(`/v1/members/${bobMember.id}/sessions`)).status).toBe(204);
    expect((await browser(back.jar)('GET', '/v1/me')).status).toBe(401);
  });
});

describe("programs with the provider's tokens (JWTs checked against its keys)", () => {
  it('accepts a client-credentials token: the organization from its issuer and audience, the role from its groups', async () => {
    const token = await idp.programToken(['zw-ops']);
    const me = await apiClient(stack.url, token).get('/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ via: 'bearer_token', role: 'operator', organization: { slug: SLUG } });
    expect(Date.parse(me.body.expiresAt)).toBeGreaterThan(Date.now());
    expect((await apiClient(stack.url, token).post('/v1/clusters', { name: 'nope' })).status).toBe(403);
    const graphql = await postGraphQL(stack.url, token, { query: '{ fleet { clusters { name } } }' });
    expect(graphql.body.errors).toBeUndefined();
  });

  it('refuses a tampered, an expired, a foreign-audience and an unmapped token', async () => {
    const token = await idp.programToken(['zw-ops']);
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = [
      header,
      Buffer.from(JSON.stringify({ ...claims, groups: ['zw-admins'] })).toString('base64url'),
      signature,
    ].join('.');
    const refusal = async (bearer: string) => {
      const answer = await apiClient(stack.url, bearer).get('/v1/me');
      return { status: answer.status, detail: ProblemSchema.parse(answer.body).detail };
    };
    expect(await refusal(tampered)).toEqual({
      status: 401,
      detail: expect.stringMatching(/signature does not verify/),
    });
    const now = Math.floor(Date.now() / 1000);
    const expired = await idp.sign({ ...claims, iat: now - 7200, exp: now - 3600 });
    expect(await refusal(expired)).toEqual({ status: 401, detail: expect.stringMatching(/this token expired at/) });
    const elsewhere = await idp.sign({ ...claims, aud: 'another-api' });
    expect(await refusal(elsewhere)).toEqual({
      status: 401,
      detail: expect.stringMatching(/no organization accepts tokens of issuer .* for audience another-api/),
    });
    const unmapped = await idp.programToken(['nobody']);
    expect(await refusal(unmapped)).toEqual({ status: 403, detail: expect.stringMatching(/map to no role/) });
  });
});
