import { useState } from 'preact/hooks';
import { Token } from '../session.js';

/** The token form: shown with no token, or with the reason Baton refused the last one. */
export function LoginView({ error, onToken }: { error: string | null; onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    const token = Token.safeParse(value);
    if (!token.success) return setInvalid('A token is one word, with no spaces.');
    setInvalid(null);
    onToken(token.data);
  };
  return (
    <main class="login card" aria-labelledby="login-heading">
      <h1 id="login-heading">Baton Console</h1>
      {error && (
        <p class="error login-error" role="alert">
          {error}
        </p>
      )}
      <p>
        Open the console with the URL <code>npm start</code> prints (it carries the token), or paste the token here: it
        is in the start-up output, or in <code>&lt;data dir&gt;/token</code>.
      </p>
      <form onSubmit={submit}>
        <label>
          Token
          <input
            type="password"
            name="token"
            autoComplete="off"
            required
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </label>
        {invalid && <p class="error">{invalid}</p>}
        <button type="submit" class="primary">
          Connect
        </button>
      </form>
    </main>
  );
}
