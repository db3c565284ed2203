import { useState } from 'preact/hooks';

/** Asks for a JWT or an API key; `message` explains why the last one was refused. */
export function SignIn({ message, onSignIn }: { message: string | null; onSignIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  return (
    <main class="signin">
      <form
        class="card signin-card"
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) onSignIn(token.trim());
        }}
      >
        <h1 class="brand">
          <span class="logo" aria-hidden="true" />
          Kairos
        </h1>
        <p class="muted">Sign in with a JWT or an API key (<code>kairos_…</code>). It is kept in this tab only and sent as the bearer token.</p>
        {message && (
          <div class="banner banner-error" role="alert" data-testid="signin-error">
            {message}
          </div>
        )}
        <label for="token">Token</label>
        <textarea id="token" name="token" rows={4} spellcheck={false} autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} placeholder="eyJhbGciOi… or kairos_…" />
        <button class="btn btn-primary" type="submit" disabled={!token.trim()}>
          Sign in
        </button>
        <p class="muted small">
          <code>npm start</code> prints a development token; this mints more:
        </p>
        {/* On one line (scrolling when too wide): a command broken at its hyphens reads as another command. */}
        <code class="command hint-command" data-testid="token-command">
          npm run token -- --tenant demo --role viewer
        </code>
      </form>
    </main>
  );
}
