import { render, type ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { asKairosError, createClient, type KairosClient, type Viewer } from './api/client.js';
import { Card } from './components.js';
import { ExecutionsTable } from './executionsTable.js';
import { useRoute } from './hooks.js';
import { Admin } from './pages/Admin.js';
import { Alerts } from './pages/Alerts.js';
import { ExecutionPage } from './pages/ExecutionPage.js';
import { JobForm } from './pages/JobForm.js';
import { JobPage } from './pages/JobPage.js';
import { Jobs } from './pages/Jobs.js';
import { SignIn } from './pages/SignIn.js';
import { LiveFeed, SessionContext, tokenStore, type Session } from './session.js';
import './styles.css';

type SignedIn = { client: KairosClient; viewer: Viewer };

/** Checks the stored token with a viewer query; shows sign-in until one is accepted. */
function App() {
  const [state, setState] = useState<{ session: SignedIn | null; checking: boolean; message: string | null }>({ session: null, checking: Boolean(tokenStore.get()), message: null });

  const signIn = async (token: string) => {
    setState({ session: null, checking: true, message: null });
    const client = createClient(token);
    try {
      const viewer = await client.viewer();
      tokenStore.set(token);
      setState({ session: { client, viewer }, checking: false, message: null });
    } catch (error) {
      void client.close();
      tokenStore.clear();
      const e = asKairosError(error);
      const message = e.code === 'UNAUTHENTICATED' ? `Kairos refused this token: ${e.message}. Check that it is complete, not expired, and signed for this deployment.` : e.message;
      setState({ session: null, checking: false, message });
    }
  };
  const signOut = (message: string | null = null) => {
    void state.session?.client.close();
    tokenStore.clear();
    setState({ session: null, checking: false, message });
  };

  useEffect(() => {
    const stored = tokenStore.get();
    if (stored) void signIn(stored);
  }, []);

  if (state.checking) return <main class="signin muted">Signing in…</main>;
  if (!state.session) return <SignIn message={state.message} onSignIn={(t) => void signIn(t)} />;
  return <Shell signedIn={state.session} onSignOut={signOut} />;
}

function Shell({ signedIn, onSignOut }: { signedIn: SignedIn; onSignOut: (message?: string | null) => void }) {
  const route = useRoute();
  const [liveError, setLiveError] = useState<string | null>(null);
  const session: Session = useMemo(() => {
    const role = signedIn.viewer.role;
    return { ...signedIn, live: new LiveFeed(), canWrite: role !== 'VIEWER', isAdmin: role === 'ADMIN' };
  }, [signedIn]);

  // One subscription for the whole page: every status change of the tenant's executions. The SDK
  // reconnects a dropped feed; it ends when the server refuses the token or reconnecting gives up.
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const event of session.client.watchExecutions({}, { signal: stop.signal })) {
          setLiveError(null);
          session.live.emit(event);
        }
      } catch (error) {
        // A refused token signs out; a drop reconnecting gave up on is the feed lost; any other refusal
        // (QUOTA_EXCEEDED past the socket caps, an error of the subscription) is shown in the server's words.
        const e = asKairosError(error);
        const closed = e.details.closeCode !== undefined;
        if (e.code === 'UNAUTHENTICATED') onSignOut(closed ? 'The live feed was refused: the token is no longer valid' : e.message);
        else setLiveError(e.code === 'NETWORK_ERROR' ? 'The live feed was lost' : e.message);
      }
    })();
    return () => stop.abort();
  }, [session]);

  const v = session.viewer;
  const section = route.split('/')[1];
  return (
    <SessionContext.Provider value={session}>
      <header class="topbar">
        <a class="brand" href="#/jobs">
          <span class="logo" aria-hidden="true" />
          Kairos
        </a>
        <nav class="tabs">
          <a class={section === 'jobs' ? 'on' : ''} href="#/jobs">
            Jobs
          </a>
          <a class={section === 'executions' ? 'on' : ''} href="#/executions">
            Executions
          </a>
          <a class={section === 'alerts' ? 'on' : ''} href="#/alerts">
            Alerts
          </a>
          {session.isAdmin && (
            <a class={section === 'admin' ? 'on' : ''} href="#/admin">
              Admin
            </a>
          )}
        </nav>
        <div class="who" data-testid="who">
          <span class="tenant" title={`Signed in as ${v.subject}`}>
            {v.tenantId}
          </span>
          <span class={`role role-${v.role.toLowerCase()}`}>{v.role.toLowerCase()}</span>
          <button class="btn btn-ghost" onClick={() => onSignOut()}>
            Sign out
          </button>
        </div>
      </header>
      {liveError && <div class="banner banner-warn slim">{liveError}; reconnecting…</div>}
      <Page route={route} />
    </SessionContext.Provider>
  );
}

function Page({ route }: { route: string }) {
  const parts = route.split('/').filter(Boolean);
  if (parts[0] === 'jobs' && parts[1] === 'new') return <WriteOnly><JobForm /></WriteOnly>;
  if (parts[0] === 'jobs' && parts[1] && parts[2] === 'edit') return <WriteOnly><JobForm id={parts[1]} /></WriteOnly>;
  if (parts[0] === 'jobs' && parts[1]) return <JobPage id={parts[1]} />;
  if (parts[0] === 'executions' && parts[1]) return <ExecutionPage id={parts[1]} />;
  if (parts[0] === 'executions') {
    return (
      <main class="page">
        <Card title="Executions">
          <ExecutionsTable />
        </Card>
      </main>
    );
  }
  if (parts[0] === 'alerts') return <Alerts />;
  if (parts[0] === 'admin') return <SessionContext.Consumer>{(s) => (s?.isAdmin ? <Admin /> : <main class="page"><div class="banner banner-info">Only admins manage API keys.</div></main>)}</SessionContext.Consumer>;
  return <Jobs />;
}

/** Pages a VIEWER may not use say so instead of showing a form that would be refused. */
function WriteOnly({ children }: { children: ComponentChildren }) {
  return <SessionContext.Consumer>{(s) => (s?.canWrite ? children : <main class="page"><div class="banner banner-info">Your role may not change jobs.</div></main>)}</SessionContext.Consumer>;
}

render(<App />, document.getElementById('app')!);
