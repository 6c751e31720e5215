import { useEffect, useRef, useState } from 'preact/hooks';
import { api, upload } from '../api.js';
import type { DocumentRow } from '../api.js';
import { Alert, Link, formatBytes } from '../components.js';

interface Upload {
  id: number;
  name: string;
  progress: number;
  error?: string;
}

/** a request every 3 s while something is in progress: well within the free plan's 100 requests a minute */
const POLL_MS = 3000;
let nextUpload = 0;
/** documents a screen, newest first */
const PAGE = 50;

/** The documents: a list with live status (polled while any is in progress), and an upload with progress. */
export function DocumentsPage() {
  const [docs, setDocs] = useState<DocumentRow[] | null>(null);
  const [total, setTotal] = useState(0);
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const fileInput = useRef<HTMLInputElement>(null);

  const load = async () => {
    try {
      const r = await api<{ data: DocumentRow[]; total: number }>(`/v1/documents?limit=${PAGE}&offset=${offset}`);
      setDocs(r.data);
      setTotal(r.total);
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  useEffect(() => {
    void load();
  }, [offset]);

  // poll while something is on its way: an upload, or a document not finished yet
  const busy = uploads.some((u) => !u.error && u.progress < 1) || !!docs?.some((d) => d.status === 'pending' || d.status === 'processing');
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(t);
  }, [busy, offset]);

  const remove = async (d: DocumentRow) => {
    if (!confirm(`Delete “${d.name}”, its parsed content and its search index entries?`)) return;
    try {
      await api(`/v1/documents/${d.id}`, { method: 'DELETE' });
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const send = (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) {
      const id = nextUpload++;
      setUploads((u) => [...u, { id, name: file.name, progress: 0 }]);
      const update = (patch: Partial<Upload>) => setUploads((list) => list.map((x) => (x.id === id ? { ...x, ...patch } : x)));
      const form = new FormData();
      form.append('file', file, file.name);
      const { done } = upload('/api/upload', form, (p) => update({ progress: p }));
      done.then(
        () => {
          setUploads((list) => list.filter((x) => x.id !== id));
          void load();
        },
        (e: Error) => update({ error: e.message }),
      );
    }
    if (fileInput.current) fileInput.current.value = '';
  };

  return (
    <section>
      <h1>Documents</h1>
      <form
        class="upload"
        onSubmit={(e) => e.preventDefault()}
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          send(e.dataTransfer?.files ?? null);
        }}
      >
        <label for="file">Upload documents (PDF, images, Office files, spreadsheets…)</label>
        <input id="file" ref={fileInput} type="file" multiple onChange={(e) => send((e.currentTarget as HTMLInputElement).files)} />
      </form>
      {uploads.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.id}>
              <span>{u.name}</span>
              {u.error ? (
                <span class="error" role="alert">
                  {u.error}
                </span>
              ) : (
                <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`}>
                  {Math.round(u.progress * 100)}%
                </progress>
              )}
            </li>
          ))}
        </ul>
      )}
      <Alert error={error} />
      {docs === null ? (
        <p role="status">Loading…</p>
      ) : docs.length === 0 ? (
        <p>No documents yet: upload one above.</p>
      ) : (
        <table class="docs">
          <caption class="sr-only">Your documents ({total})</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Type</th>
              <th scope="col">Pages</th>
              <th scope="col">Size</th>
              <th scope="col">Uploaded</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody aria-live="polite">
            {docs.map((d) => (
              <tr key={d.id} data-status={d.status}>
                <td>{d.status === 'completed' ? <Link to={`/documents/${d.id}`}>{d.name}</Link> : d.name}</td>
                <td>
                  <span class={`status ${d.status}`}>{d.status}</span>
                  {d.error && <span class="error"> {d.error}</span>}
                </td>
                <td>{d.file_type}</td>
                <td>{d.pages ?? '–'}</td>
                <td>{formatBytes(d.file_size)}</td>
                <td>{new Date(d.created * 1000).toLocaleString()}</td>
                <td>
                  <button type="button" class="link" aria-label={`Delete ${d.name}`} onClick={() => void remove(d)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {total > PAGE && (
        <nav class="pager" aria-label="Pages of documents">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Newer
          </button>
          <span>
            {offset + 1}–{Math.min(total, offset + PAGE)} of {total}
          </span>
          <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
