/**
 * The studio talks to the same JSON API as everyone else, signed in by the session cookie (HttpOnly, set by
 * /api/auth/login). Writes carry the CSRF proof: the quire_csrf cookie's value in X-CSRF-Token.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

function csrf(): string {
  const m = /(?:^|;\s*)quire_csrf=([^;]*)/.exec(document.cookie);
  return m ? decodeURIComponent(m[1]!) : '';
}

/** Whether the browser holds the session's companion cookie (the session cookie itself is HttpOnly). */
export function hasSessionCookie(): boolean {
  return csrf() !== '';
}

/** Listeners told when a call answers 401 (the session ended): the app shows the login page. */
export const onSignedOut = new Set<() => void>();

function failure(status: number, body: any): ApiError {
  const e = body?.error;
  const message = (e && typeof e === 'object' ? e.message : typeof e === 'string' ? e : body?.message) || `Request failed (${status})`;
  return new ApiError(status, message, e?.code, e?.details);
}

export async function api<T = any>(path: string, init: { method?: string; json?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD') headers['x-csrf-token'] = csrf();
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(path, { method, headers, body, credentials: 'same-origin', signal: init.signal });
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/api/auth/')) for (const f of onSignedOut) f();
    throw failure(res.status, parsed);
  }
  return parsed as T;
}

/** A text answer (Markdown) as it is. */
export async function apiText(path: string): Promise<string> {
  const res = await fetch(path, { credentials: 'same-origin' });
  const text = await res.text();
  if (!res.ok) {
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    throw failure(res.status, body);
  }
  return text;
}

/** A multipart upload with progress (fetch has no upload progress; XMLHttpRequest does). */
export function upload<T = any>(path: string, form: FormData, onProgress: (fraction: number) => void): { done: Promise<T>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<T>((resolve, reject) => {
    xhr.open('POST', path);
    xhr.setRequestHeader('x-csrf-token', csrf());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: any = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else reject(failure(xhr.status, body));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload failed: the connection was lost'));
    xhr.onabort = () => reject(new ApiError(0, 'Upload cancelled'));
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}

// ---- shapes the studio reads

export interface User {
  id: string;
  email: string;
  name: string | null;
}

export interface DocumentRow {
  id: string;
  name: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  file_type: string;
  file_size: number;
  pages: number | null;
  created: number;
  error?: string;
}

export interface BBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LayoutBlock {
  index: number;
  type: string;
  text: string;
  page: number;
  bbox: BBox | null;
  confidence: number;
  table_index?: number;
}

export interface LayoutTable {
  index: number;
  page: number;
  bbox: BBox | null;
  rows: number;
  cols: number;
  confidence: number;
  cells: { row: number; col: number; row_span: number; col_span: number; text: string; header: boolean }[];
}

export interface LayoutChunk {
  id: string;
  index: number;
  page: number;
  type: string;
  confidence: number;
  content: string;
  boxes: { page: number; bbox: BBox }[];
}

export interface Layout {
  id: string;
  name: string;
  file_type: string;
  page_images: 'as-is' | 'rendered' | null;
  pages: { number: number; width: number; height: number; ocr: boolean; confidence: number; name?: string }[];
  blocks: LayoutBlock[];
  tables: LayoutTable[];
  chunks: LayoutChunk[];
  issues: { code: string; message: string; page?: number }[];
}

export interface FieldResult {
  field: string;
  value: unknown;
  confidence: number;
  evidence?: { text: string; page: number; bbox: BBox; confidence: number; chunk_id?: string } | null;
}

export interface ExtractionRun {
  success: boolean;
  extraction_id: string;
  document_id: string;
  data: Record<string, unknown>;
  field_results: FieldResult[];
  overall_confidence: number;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  status: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  key?: string;
}
