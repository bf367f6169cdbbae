import { type FormEvent, useState } from 'react';
import { useLocation } from 'wouter';
import { signIn, signedOutBecause } from '../auth';

export function SignIn() {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [, navigate] = useLocation();
  const reason = signedOutBecause();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(key);
      navigate('/', { replace: true });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>zonewise</h1>
      <p>Sign in with an API key of your organization (zwk_…). It is kept in this tab only.</p>
      {reason && (
        <p className="error" role="alert" data-testid="signed-out-reason">
          You were signed out: {reason}
        </p>
      )}
      <form onSubmit={submit}>
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
