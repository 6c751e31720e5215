import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { User } from '../api.js';
import { Alert, Link } from '../components.js';
import { navigate } from '../router.js';

/** Sign in, or create an account (the same form; sign-up adds a name). */
export function LoginPage(props: { mode: 'login' | 'signup'; onSignedIn: (u: User) => void }) {
  const signup = props.mode === 'signup';
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [needTotp, setNeedTotp] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const body: Record<string, string> = { email: String(f.get('email') ?? ''), password: String(f.get('password') ?? '') };
    if (signup && f.get('name')) body.name = String(f.get('name'));
    if (needTotp) body.totp_code = String(f.get('totp_code') ?? '');
    setBusy(true);
    setError(null);
    try {
      // sign-up answers the same for a new and a registered email (it never tells which): then sign in
      if (signup) await api('/api/auth/signup', { method: 'POST', json: body });
      const r = await api<{ user: User }>('/api/auth/login', { method: 'POST', json: { email: body.email, password: body.password, ...(body.totp_code ? { totp_code: body.totp_code } : {}) } });
      props.onSignedIn(r.user);
      navigate(location.pathname.endsWith('/login') || location.pathname.endsWith('/signup') ? '/documents' : location.pathname + location.search, true);
    } catch (err) {
      const details = (err as { details?: { totp_required?: boolean } }).details;
      if (details?.totp_required) setNeedTotp(true);
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="auth">
      <h1>{signup ? 'Create an account' : 'Sign in'}</h1>
      <form onSubmit={submit} aria-describedby="auth-error">
        {signup && (
          <label>
            Name
            <input name="name" autoComplete="name" />
          </label>
        )}
        <label>
          Email
          <input name="email" type="email" required autoComplete="email" />
        </label>
        <label>
          Password
          <input name="password" type="password" required autoComplete={signup ? 'new-password' : 'current-password'} />
        </label>
        {needTotp && (
          <label>
            Two-factor code
            <input name="totp_code" inputMode="numeric" pattern="[0-9]{6}" autoComplete="one-time-code" required />
          </label>
        )}
        <div id="auth-error">
          <Alert error={error} />
        </div>
        <button type="submit" disabled={busy}>
          {signup ? 'Create account' : 'Sign in'}
        </button>
      </form>
      <p>{signup ? <>Already have an account? <Link to="/login">Sign in</Link></> : <>New here? <Link to="/signup">Create an account</Link></>}</p>
    </section>
  );
}
