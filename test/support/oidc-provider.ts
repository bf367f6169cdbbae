import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A real OpenID Connect provider in this process (panva's oidc-provider, OpenID Certified), on an
 * ephemeral loopback port: authorization code with PKCE for people (its own development login page: any
 * login name, any password), client credentials for programs, access tokens as JWTs for the zonewise
 * audience, signed with a key the test holds (to mint expired or foreign tokens with it).
 */

export interface TestAccount {
  email: string;
  name: string;
  groups: string[];
}

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The audience its access tokens name (the zonewise organization's configured audience). */
  audience: string;
  accounts: Record<string, TestAccount>;
  /** A client-credentials access token of `clientId` for a program whose groups are `groups`. */
  programToken(groups: string[]): Promise<string>;
  /** A JWT signed with the provider's own key, with these claims (to make an expired one, say). */
  sign(claims: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

const CLIENT_ID = 'zonewise-dashboard';
const CLIENT_SECRET = 'a-test-only-client-secret-of-enough-length';
/** A resource indicator (RFC 8707) is an absolute URI: the API's audience is one. */
const AUDIENCE = 'https://zonewise.example.test/api';

/** Groups the next client-credentials token gets (programs have no account: the claim comes from here). */
let programGroups: string[] = [];

export async function startIdentityProvider(
  redirectUris: string[],
  accounts: Record<string, TestAccount>,
): Promise<TestIdentityProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code', 'client_credentials'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['a-test-only-cookie-signing-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // The groups claim travels in the ID token itself, as most providers configure it for an app.
    conformIdTokenClaims: false,
    findAccount: (_: KoaContextWithOIDC, sub: string) => ({
      accountId: sub,
      claims: () => {
        const account = accounts[sub] ?? { email: `${sub}@example.test`, name: sub, groups: [] };
        return { sub, email: account.email, email_verified: true, name: account.name, groups: account.groups };
      },
    }),
    // A first-party application: the grant is given without a consent page.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid email profile');
      grant.addOIDCClaims(['groups', 'email', 'name']);
      grant.addResourceScope(AUDIENCE, 'zonewise');
      await grant.save();
      return grant;
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: 'zonewise', audience: AUDIENCE, accessTokenFormat: 'jwt' }),
      },
    },
    extraTokenClaims: (_: KoaContextWithOIDC, token: { kind: string }) =>
      token.kind === 'ClientCredentials' ? { groups: programGroups } : undefined,
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    audience: AUDIENCE,
    accounts,
    async programToken(groups) {
      programGroups = groups;
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: AUDIENCE, scope: 'zonewise' }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    sign(claims) {
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' }).sign(privateKey);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser's cookies, as far as these tests need them: by name, whatever their path, both hosts apart. */
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  store(url: string, response: Response): void {
    const host = new URL(url).host;
    const cookies = this.byHost.get(host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair.split('=');
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value.join('=') === '') cookies.delete(name.trim());
      else cookies.set(name.trim(), value.join('='));
    }
    this.byHost.set(host, cookies);
  }

  header(url: string): string {
    return [...(this.byHost.get(new URL(url).host) ?? new Map()).entries()]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  get(url: string, name: string): string | undefined {
    return this.byHost.get(new URL(url).host)?.get(name);
  }
}

/**
 * A person signing in as a browser would, without one: the dashboard's SSO start, the provider's login
 * page (login name `login`, any password), back to the callback. Answers the last redirect (where the
 * browser lands) and the jar holding the session cookie.
 */
export async function signInThroughProvider(
  apiUrl: string,
  slug: string,
  login: string,
  jar = new CookieJar(),
  returnTo = '/',
): Promise<{ location: string; jar: CookieJar }> {
  let url = `${apiUrl}/v1/auth/sso/${slug}/start?returnTo=${encodeURIComponent(returnTo)}`;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
    jar.store(url, response);
    const location = response.headers.get('location');
    if (response.status === 200 && (response.headers.get('content-type') ?? '').includes('text/html')) {
      // The provider's login page: submit its form.
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`a page without a form at ${url}: ${html.slice(0, 300)}`);
      const target = new URL(action, url).href;
      const posted = await fetch(target, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(target), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login, password: 'any' }),
      });
      jar.store(target, posted);
      url = new URL(posted.headers.get('location')!, target).href;
      continue;
    }
    if (!location) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
    const next = new URL(location, url).href;
    if (new URL(next).origin === new URL(apiUrl).origin && !next.includes('/v1/auth/')) {
      return { location: next.slice(new URL(apiUrl).origin.length), jar };
    }
    url = next;
  }
  throw new Error('too many redirects');
}
