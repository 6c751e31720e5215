import type { ComponentChildren } from 'preact';
import { BASE, linkClick } from './router.js';

export function Link(props: { to: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' | undefined }) {
  return (
    <a href={BASE + props.to} class={props.class} aria-current={props['aria-current']} onClick={(e) => linkClick(e as unknown as MouseEvent, props.to)}>
      {props.children}
    </a>
  );
}

/** An error or notice people must notice: announced by screen readers. */
export function Alert(props: { error?: string | null; children?: ComponentChildren }) {
  if (!props.error && !props.children) return null;
  return (
    <p class={props.error ? 'alert error' : 'alert'} role={props.error ? 'alert' : 'status'}>
      {props.error ?? props.children}
    </p>
  );
}

export const percent = (v: number) => `${Math.round(v * 100)}%`;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A secret the API shows only once (a new API key, a webhook's signing secret): select, copy, dismiss. */
export function ShownOnce(props: { label: string; value: string; children: ComponentChildren; onDone: () => void }) {
  return (
    <div class="fresh" role="status">
      <p>{props.children}</p>
      <label>
        {props.label}
        <input class="secret" readOnly value={props.value} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      </label>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(props.value).catch(() => {})}>
        Copy
      </button>
      <button type="button" class="link" onClick={props.onDone}>
        Done
      </button>
    </div>
  );
}
