import { useEffect, useState } from 'preact/hooks';

/** The path the hash names: `#/thread/thr_1` is `/thread/thr_1`; no hash is the threads list. */
export function currentPath(): string {
  const hash = location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/threads';
}

export function useHashPath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return path;
}

export function go(path: string): void {
  location.hash = `#${path}`;
}

/** Matches `/thread/:threadId/graph` against a path; the params are decoded, null when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (!g) return null;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) return null;
  }
  return params;
}

export const threadPath = (threadId: string, tab = ''): string =>
  `/thread/${encodeURIComponent(threadId)}${tab ? `/${tab}` : ''}`;
