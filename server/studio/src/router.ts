import { useEffect, useState } from 'preact/hooks';

/** The app's paths live under /studio (the host answers index.html for all of them). */
export const BASE = '/studio';

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  const url = to.startsWith(BASE) ? to : BASE + to;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const f of listeners) f();
  window.scrollTo(0, 0);
  // a screen reader starts reading the new page from its main content
  setTimeout(() => document.getElementById('main')?.focus({ preventScroll: true }));
}

window.addEventListener('popstate', () => {
  for (const f of listeners) f();
});

/** The current path below /studio ('/' for the app's root) and query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, tick] = useState(0);
  useEffect(() => {
    const f = () => tick((n) => n + 1);
    listeners.add(f);
    return () => listeners.delete(f);
  }, []);
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return { path: p.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) };
}

/** A link inside the app: a real <a href> (keyboard, middle click) that navigates without reloading. */
export function linkClick(e: MouseEvent, to: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(to);
}
