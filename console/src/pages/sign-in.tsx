import { useState } from 'preact/hooks';
import { request } from '../api';
import { saveKey } from '../session';
import { asApiError } from '../ui';

/** The app's secret key is the sign-in: checked with one read of the catalogue, then kept in this tab only. */
export function SignIn({ notice, onSignedIn }: { notice: string | undefined; onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const entered = key.trim();
    if (!entered) {
      setError("Enter your app's secret key.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await request('GET', '/v1/subscriptions/products', { key: entered });
      saveKey(entered);
      setKey('');
      onSignedIn();
    } catch (caught) {
      const failure = asApiError(caught);
      setError(failure.status === 401 ? 'That key was refused: use the secret key of your app.' : failure.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Subscriptions console</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <label for="secret-key">App secret key</label>
        <input
          id="secret-key"
          name="secret-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onInput={(event) => setKey((event.target as HTMLInputElement).value)}
        />
        <p class="hint">Kept in this browser tab only, until you sign out or close the tab.</p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
