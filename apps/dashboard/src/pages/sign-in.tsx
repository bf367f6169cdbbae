import { type FormEvent, useState } from 'react';
import { useLocation, useParams, useSearch } from 'wouter';
import { lastOrganization, signIn, signedOutBecause, singleSignOnUrl } from '../auth';

/** The page to open once signed in: the sign-in URL's `returnTo`, a path of this dashboard only. */
function returnPath(search: string): string {
  const path = new URLSearchParams(search).get('returnTo') ?? '/';
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/sign-in') ? path : '/';
}

/**
 * Signing in: through the organization's identity provider (single sign-on), or with an API key. The
 * organization is picked by its slug: `/sign-in/<slug>` (the URL its admin shares) fills it in.
 */
export function SignIn() {
  const params = useParams<{ slug?: string }>();
  const search = useSearch();
  const [organization, setOrganization] = useState(params.slug ?? lastOrganization());
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [, navigate] = useLocation();
  const reason = signedOutBecause();
  const refused = new URLSearchParams(search).get('error');
  const returnTo = returnPath(search);

  function singleSignOn(event: FormEvent) {
    event.preventDefault();
    window.location.assign(singleSignOnUrl(organization.trim(), returnTo));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(key);
      navigate(returnTo, { replace: true });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>zonewise</h1>
      {reason && (
        <p className="error" role="alert" data-testid="signed-out-reason">
          You were signed out: {reason}
        </p>
      )}
      {refused && (
        <p className="error" role="alert" data-testid="sign-in-refused">
          Sign-in failed: {refused}
        </p>
      )}
      <form onSubmit={singleSignOn}>
        <h2>Single sign-on</h2>
        <p>Sign in through your company&apos;s identity provider.</p>
        <label htmlFor="organization">Organization</label>
        <input
          id="organization"
          autoComplete="organization"
          value={organization}
          onChange={(event) => setOrganization(event.target.value)}
          placeholder="its slug, e.g. acme"
          pattern="[a-z0-9][a-z0-9\-]*"
          required
        />
        <button type="submit" disabled={organization.trim() === ''}>
          Continue with SSO
        </button>
      </form>
      <form onSubmit={submit}>
        <h2>With an API key</h2>
        <p>Or sign in with an API key of your organization (zwk_…). It is kept in this tab only.</p>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          required
        />
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="hint">
        No key yet? <code>npm run api-key:create -- --org &lt;org&gt; --name dashboard --role viewer</code>
      </p>
    </main>
  );
}
