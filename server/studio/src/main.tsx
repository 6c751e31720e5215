import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, hasSessionCookie, onSignedOut } from './api.js';
import type { User } from './api.js';
import { Link } from './components.js';
import { navigate, useLocation } from './router.js';
import { LoginPage } from './pages/login.js';
import { DocumentsPage } from './pages/documents.js';
import { DocumentPage } from './pages/document.js';
import { KeysPage } from './pages/keys.js';
import { KnowledgeBasePage, KnowledgeBasesPage } from './pages/knowledge-bases.js';
import { WebhooksPage } from './pages/webhooks.js';
import { WorkflowsPage } from './pages/workflows.js';
import { OrganizationsPage } from './pages/organizations.js';
import { UsagePage } from './pages/usage.js';
import { PrivacyPage } from './pages/privacy.js';
import { EditProjectsPage } from './pages/edit.js';
import './styles.css';

type Session = { user: User } | null | undefined;

function App() {
  const { path, query } = useLocation();
  const [session, setSession] = useState<Session>(undefined);

  useEffect(() => {
    // no CSRF cookie, no session: no request (a 401 would only be noise in the console)
    if (!hasSessionCookie()) {
      setSession(null);
      return;
    }
    api<{ user: User }>('/api/auth/session')
      .then((s) => setSession({ user: s.user }))
      .catch(() => setSession(null));
    const out = () => setSession(null);
    onSignedOut.add(out);
    return () => onSignedOut.delete(out);
  }, []);

  // the shared view of a parse (the signed studio_link) needs no session
  const shared = /^\/shared\/([0-9a-f-]{36})$/i.exec(path);
  if (shared) {
    return (
      <Shell>
        <DocumentPage source={{ kind: 'signed', jobId: shared[1]!, expires: query.get('expires') ?? '', sig: query.get('sig') ?? '' }} />
      </Shell>
    );
  }
  if (session === undefined) return <p class="loading" role="status">Loading…</p>;
  if (session === null || path === '/login' || path === '/signup') {
    if (session && (path === '/login' || path === '/signup')) {
      navigate('/documents', true);
      return null;
    }
    return <LoginPage mode={path === '/signup' ? 'signup' : 'login'} onSignedIn={(user) => setSession({ user })} />;
  }

  const logout = async () => {
    await api('/api/auth/logout', { method: 'POST' }).catch(() => {});
    setSession(null);
    navigate('/login');
  };
  const doc = /^\/documents\/([0-9a-f-]{36})$/i.exec(path);
  const kb = /^\/knowledge-bases\/([0-9a-f-]{36})$/i.exec(path);
  let page;
  // a page of its own per document or knowledge base: nothing of the last one stays (selection, views)
  if (doc) page = <DocumentPage key={doc[1]} source={{ kind: 'document', id: doc[1]! }} />;
  else if (kb) page = <KnowledgeBasePage key={kb[1]} id={kb[1]!} />;
  else if (path === '/knowledge-bases') page = <KnowledgeBasesPage />;
  else if (path === '/workflows') page = <WorkflowsPage />;
  else if (path === '/edit-projects') page = <EditProjectsPage />;
  else if (path === '/settings/keys') page = <KeysPage />;
  else if (path === '/settings/webhooks') page = <WebhooksPage />;
  else if (path === '/settings/organizations') page = <OrganizationsPage userId={session.user.id} />;
  else if (path === '/settings/usage') page = <UsagePage />;
  else if (path === '/settings/privacy') page = <PrivacyPage />;
  else if (path === '/' || path === '/documents') page = <DocumentsPage />;
  else page = <NotFound />;
  const section = path.startsWith('/settings') ? 'settings' : path.startsWith('/knowledge-bases') ? 'kb' : path === '/' || path.startsWith('/documents') ? 'documents' : 'other';
  return (
    <Shell
      nav={
        <>
          <nav aria-label="Main">
            <Link to="/documents" aria-current={section === 'documents' ? 'page' : undefined}>
              Documents
            </Link>
            <Link to="/knowledge-bases" aria-current={section === 'kb' ? 'page' : undefined}>
              Knowledge bases
            </Link>
            <Link to="/workflows" aria-current={path === '/workflows' ? 'page' : undefined}>
              Workflows
            </Link>
            <Link to="/edit-projects" aria-current={path === '/edit-projects' ? 'page' : undefined}>
              Edit projects
            </Link>
            <Link to="/settings/keys" aria-current={section === 'settings' ? 'page' : undefined}>
              Settings
            </Link>
          </nav>
          <div class="who">
            <span>{session.user.email}</span>
            <button type="button" class="link" onClick={logout}>
              Sign out
            </button>
          </div>
        </>
      }
    >
      {section === 'settings' ? <Settings path={path}>{page}</Settings> : page}
    </Shell>
  );
}

const SETTINGS: [string, string][] = [
  ['/settings/keys', 'API keys'],
  ['/settings/webhooks', 'Webhooks'],
  ['/settings/organizations', 'Organizations'],
  ['/settings/usage', 'Credits and usage'],
  ['/settings/privacy', 'Privacy'],
];

/** The settings pages share a second navigation beside them. */
function Settings(props: { path: string; children: preact.ComponentChildren }) {
  return (
    <div class="settings">
      <nav aria-label="Settings" class="subnav">
        {SETTINGS.map(([to, label]) => (
          <Link key={to} to={to} aria-current={props.path === to ? 'page' : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      <div>{props.children}</div>
    </div>
  );
}

function Shell(props: { nav?: preact.ComponentChildren; children: preact.ComponentChildren }) {
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Quire Studio</span>
        {props.nav}
      </header>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page. <Link to="/documents">Back to the documents</Link>
      </p>
    </section>
  );
}

render(<App />, document.getElementById('app')!);
