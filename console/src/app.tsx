import { useEffect, useState } from 'preact/hooks';
import { call, messageOf, onSessionEnd, useCsrfToken } from './api';
import { AccountsPage } from './pages/accounts';
import { KeysPage } from './pages/keys';
import { LivePage } from './pages/live';
import { ModelsPage } from './pages/models';
import { RequestsPage } from './pages/requests';
import { UsagePage } from './pages/usage';

/** The signed-in session as GET/POST /console/session describe it. */
export interface Session {
  accountId: string;
  operator: boolean;
  keyId: string;
  csrfToken: string;
  expiresAt: string;
}

const PAGES = [
  { id: 'keys', label: 'Keys', operator: false },
  { id: 'accounts', label: 'Accounts', operator: true },
  { id: 'usage', label: 'Usage', operator: false },
  { id: 'live', label: 'Live', operator: true },
  { id: 'requests', label: 'Requests', operator: false },
  { id: 'models', label: 'Models', operator: false },
] as const;
type PageId = (typeof PAGES)[number]['id'];

const pageFromHash = (): PageId => {
  // A page may carry its state after `?` (#/requests?key=…).
  const id = location.hash.replace(/^#\/?/, '').split('?')[0];
  return (PAGES.find((p) => p.id === id)?.id ?? 'keys') as PageId;
};

/** The console: sign-in until there is a session, then the navigation and the chosen page. */
export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [checking, setChecking] = useState(true);
  const [notice, setNotice] = useState('');
  const [page, setPage] = useState<PageId>(pageFromHash());

  useEffect(() => {
    onSessionEnd((reason) => {
      setSession(null);
      setNotice(`Your session ended: ${reason.replace(/^Authentication failed: /, '')}. Sign in again.`);
    });
    call<{ data: Session }>('/console/session')
      .then((r) => start(r.data))
      .catch(() => {})
      .finally(() => setChecking(false));
    const follow = () => setPage(pageFromHash());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  // Focus moves to the page heading on navigation, so keyboard and screen-reader users land on the new page.
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
    document.title = `${PAGES.find((p) => p.id === page)?.label ?? ''} · svc console`;
  }, [page, session]);

  function start(s: Session) {
    useCsrfToken(s.csrfToken);
    setSession(s);
    setNotice('');
  }

  async function signOut() {
    await call('/console/session', { method: 'DELETE' }).catch(() => {});
    useCsrfToken('');
    setSession(null);
    setNotice('Signed out.');
  }

  if (checking) return <p class="loading">Loading…</p>;
  if (!session) return <SignIn notice={notice} onSignedIn={start} />;
  const visible = PAGES.filter((p) => !p.operator || session.operator);
  const current = visible.some((p) => p.id === page) ? page : 'keys';
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">svc console</span>
        <nav aria-label="Console pages">
          <ul>
            {visible.map((p) => (
              <li key={p.id}>
                <a href={`#/${p.id}`} aria-current={p.id === current ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who" title={`Account ${session.accountId}`}>
          account {session.accountId.slice(0, 8)}
          {session.operator ? ' · operator' : ''}
        </span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        {current === 'keys' && <KeysPage />}
        {current === 'accounts' && <AccountsPage />}
        {current === 'usage' && <UsagePage session={session} />}
        {current === 'live' && <LivePage />}
        {current === 'requests' && <RequestsPage />}
        {current === 'models' && <ModelsPage />}
      </main>
    </div>
  );
}

/** The sign-in form: the ADMIN key is sent once and never kept by the page. */
function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn: (s: Session) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem('key') as HTMLInputElement;
    setBusy(true);
    setError('');
    try {
      const r = await call<{ data: Session }>('/console/session', { method: 'POST', json: { key: input.value } });
      input.value = '';
      onSignedIn(r.data);
    } catch (err) {
      setError(messageOf(err));
      input.focus();
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="signin" id="main">
      <h1>svc console</h1>
      <p>Sign in with an ADMIN API key. The key is exchanged for a session cookie and is not kept in the browser.</p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <label for="key">ADMIN API key</label>
        <input id="key" name="key" type="password" autocomplete="off" spellcheck={false} required autofocus />
        {error && (
          <p class="error" role="alert" id="signin-error">
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
