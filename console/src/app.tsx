import type { ComponentChildren } from 'preact';
import { useEffect, useErrorBoundary, useMemo } from 'preact/hooks';
import { ThreadId } from '../../src/domain/ids.js';
import { connect, type Session } from './connection.js';
import { ConsoleCtx } from './live/use-stream.js';
import { Observable, useObservable } from './observable.js';
import { ConnectionBadge } from './parts/connection-badge.js';
import { Notices } from './parts/notices.js';
import { matchPath, threadPath, useHashPath } from './router.js';
import { routes } from './routes.js';
import { forgetToken, storedToken, storeToken, takeTokenFromUrl } from './session.js';
import { LoginView } from './views/login-view.js';

/** The page a path shows: the first route that matches, with its params. */
function resolve(path: string) {
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return null;
}

/** A path part as written, when it does not decode (`%E0%A4%A`). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * A page that fails to render says so, with a way out, instead of leaving the console blank
 * (and dead: a throw in render unmounts the whole tree). Keyed by path, so another page starts clean.
 */
function PageBoundary({ children }: { children: ComponentChildren }) {
  const [error] = useErrorBoundary();
  if (!error) return <>{children}</>;
  return (
    <div class="page">
      <p class="error" role="alert">
        The console could not show this page: {error instanceof Error ? error.message : String(error)}
      </p>
      <p>
        <a href="#/threads">Back to the threads</a>
      </p>
    </div>
  );
}

/** What the page shows for a path that names no thread Baton could have: a sentence, not a failed request. */
function BadThreadId({ id }: { id: string }) {
  return (
    <div class="page">
      <p class="error" role="alert">
        “{id}” is not a thread id: ids are letters, digits and _ . : - (like thr_01J…).
      </p>
      <p>
        <a href="#/threads">Back to the threads</a>
      </p>
    </div>
  );
}

/**
 * The console's shell: login (token from the URL fragment or the form), then the top bar
 * (pages, connection state), the thread's tabs on a thread's pages, API notices, and the
 * page the hash names.
 */
export function App() {
  const session = useMemo(() => {
    takeTokenFromUrl();
    const token = storedToken();
    return new Observable<Session>(token ? { kind: 'connecting', error: null } : { kind: 'login', error: null });
  }, []);
  const state = useObservable(session);
  const path = useHashPath();

  useEffect(() => {
    const token = storedToken();
    if (token) void connect(token, session);
  }, [session]);

  if (state.kind === 'login')
    return (
      <LoginView
        error={state.error}
        onToken={(token) => {
          storeToken(token);
          session.set({ kind: 'connecting', error: null });
          void connect(token, session);
        }}
      />
    );

  const logout = () => {
    if (state.kind === 'ready') {
      state.streams.closeAll();
      state.client.close();
    }
    forgetToken();
    session.set({ kind: 'login', error: null });
  };
  const found = resolve(path);
  const threadPart = /^\/thread\/([^/]+)/.exec(path)?.[1];
  const threadId = threadPart === undefined ? undefined : decoded(threadPart);
  const validThread = threadId !== undefined && ThreadId.safeParse(threadId).success;
  const tabs = validThread ? routes.filter((r) => r.tab && r.path.startsWith('/thread/:threadId')) : [];

  return (
    <div class="shell">
      <header class="topbar">
        <a href="#/threads" class="brand">
          Baton Console
        </a>
        <nav aria-label="Pages" class="row">
          {routes
            .filter((r) => r.nav)
            .map((r) => (
              <a href={`#${r.path}`} aria-current={found?.route === r ? 'page' : undefined}>
                {r.nav}
              </a>
            ))}
        </nav>
        <span class="row">
          <ConnectionBadge />
          <button type="button" class="small" onClick={logout}>
            Log out
          </button>
        </span>
      </header>
      {tabs.length > 1 && threadId && (
        <nav class="tabs" aria-label="Thread views">
          {tabs.map((r) => {
            const href = threadPath(threadId, r.path.split('/').slice(3).join('/'));
            return (
              <a href={`#${href}`} aria-current={found?.route === r ? 'page' : undefined}>
                {r.tab}
              </a>
            );
          })}
        </nav>
      )}
      <Notices />
      {state.kind === 'connecting' ? (
        <main class="page">
          <p class="muted">{state.error ?? 'Connecting to Baton…'}</p>
        </main>
      ) : (
        <ConsoleCtx.Provider value={{ client: state.client, streams: state.streams }}>
          <main class="main">
            <PageBoundary key={path}>
              {found && found.params.threadId !== undefined && !validThread ? (
                <BadThreadId id={found.params.threadId} />
              ) : found ? (
                <found.route.view key={`${found.route.path}:${JSON.stringify(found.params)}`} {...found.params} />
              ) : (
                <p class="page error" role="alert">
                  Nothing at #{path}. <a href="#/threads">Back to the threads</a>
                </p>
              )}
            </PageBoundary>
          </main>
        </ConsoleCtx.Provider>
      )}
    </div>
  );
}
