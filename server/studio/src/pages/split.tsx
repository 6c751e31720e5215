import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Layout } from '../api.js';
import { Alert, Link, percent } from '../components.js';

interface Suggested {
  name: string;
  page_start: number;
  page_end: number;
  confidence: number;
  reason: string;
  document_type?: string;
  document_type_confidence?: number | null;
}

interface Section {
  id: string;
  sectionName: string;
  sectionType: string | null;
  pageStart: number;
  pageEnd: number;
  pageCount: number;
  confidence: number | null;
  label: string | null;
  metadata?: { document_type?: string | null; document_type_confidence?: number | null } | null;
  childDocumentId: string | null;
  childDocumentName: string | null;
  childDocumentStatus: string | null;
}

/** At most this many thumbnails per suggested section (a long section shows its first pages and a count). */
const THUMBS = 4;

/**
 * The Split tab of a document: suggested sections (POST /api/split/analyze) with their confidence and
 * reason over small page images, a split into those sections (POST /api/split/run, method manual with the
 * sections shown), and the document's sections with links to their documents.
 */
export function SplitPanel(props: { documentId: string; layout: Layout }) {
  const { documentId, layout } = props;
  const [suggested, setSuggested] = useState<Suggested[] | null>(null);
  const [sections, setSections] = useState<Section[] | null>(null);
  const [busy, setBusy] = useState<'analyze' | 'run' | null>(null);
  const [error, setError] = useState<string | null>(null);

  const loadSections = () =>
    api<{ sections: Section[] }>(`/api/documents/${documentId}/sections`)
      .then((r) => setSections(r.sections))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void loadSections();
  }, [documentId]);

  const analyze = async () => {
    setError(null);
    setBusy('analyze');
    try {
      const r = await api<{ suggested_sections: Suggested[] }>('/api/split/analyze', { method: 'POST', json: { document_id: documentId } });
      setSuggested(r.suggested_sections);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };
  // a suggested name can be changed before the split (the new documents are named after their sections)
  const rename = (i: number, name: string) => setSuggested((list) => list && list.map((x, k) => (k === i ? { ...x, name } : x)));
  const run = async () => {
    if (!suggested) return;
    setError(null);
    setBusy('run');
    try {
      await api('/api/split/run', { method: 'POST', json: { document_id: documentId, config: { method: 'manual', sections: suggested.map((s) => ({ name: s.name.trim() || undefined, page_start: s.page_start, page_end: s.page_end })) } } });
      await loadSections();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };

  const thumb = (n: number) => (layout.page_images ? `/api/documents/${documentId}/pages/${n}/image?dpi=36` : null);
  return (
    <div class="split">
      <p class="hint">Find where one document ends and the next begins, then make each section a document of its own.</p>
      <button type="button" onClick={() => void analyze()} disabled={busy !== null}>
        {busy === 'analyze' ? 'Looking for sections…' : 'Suggest sections'}
      </button>
      <Alert error={error} />
      {suggested && (
        <>
          <h2>Suggested sections ({suggested.length})</h2>
          <ol class="sections" aria-label="Suggested sections">
            {suggested.map((s, i) => {
              const pages = Array.from({ length: s.page_end - s.page_start + 1 }, (_, k) => s.page_start + k);
              return (
                <li key={i} class="section" data-pages={`${s.page_start}-${s.page_end}`}>
                  <div class="fieldhead">
                    <label class="sectionname">
                      <span class="sr-only">Name of section {i + 1}</span>
                      <input value={s.name} maxLength={255} onInput={(e) => rename(i, (e.currentTarget as HTMLInputElement).value)} />
                    </label>
                    <span class="conf" title="confidence">
                      {percent(s.confidence)}
                    </span>
                  </div>
                  <p class="meta">
                    Pages {s.page_start}–{s.page_end}
                    {s.document_type ? ` · ${s.document_type}${typeof s.document_type_confidence === 'number' ? ` (${percent(s.document_type_confidence)})` : ''}` : ''}
                  </p>
                  <p class="reason">{s.reason}</p>
                  <div class="thumbs">
                    {pages.slice(0, THUMBS).map((n) => {
                      const src = thumb(n);
                      return src ? <img key={n} src={src} alt={`Page ${n}`} loading="lazy" decoding="async" /> : <span key={n} class="thumb-blank">{n}</span>;
                    })}
                    {pages.length > THUMBS && <span class="more">+{pages.length - THUMBS} pages</span>}
                  </div>
                </li>
              );
            })}
          </ol>
          <button type="button" onClick={() => void run()} disabled={busy !== null || suggested.length === 0}>
            {busy === 'run' ? 'Splitting…' : `Split into ${suggested.length} documents`}
          </button>
        </>
      )}
      <h2>Sections of this document</h2>
      {sections === null ? (
        <p role="status">Loading…</p>
      ) : sections.length === 0 ? (
        <p>Not split yet.</p>
      ) : (
        <ol class="sections made" aria-label="Sections of this document">
          {sections.map((s) => (
            <li key={s.id} class="section" data-section={s.sectionName}>
              {s.childDocumentId ? <Link to={`/documents/${s.childDocumentId}`}>{s.sectionName}</Link> : <span>{s.sectionName}</span>} · pages {s.pageStart}–{s.pageEnd}
              {s.metadata?.document_type ? ` · ${s.metadata.document_type}` : ''}
              {/* a confidence belongs to a detected section; sections given or cut by page count have none */}
              {s.sectionType === 'detected' && s.confidence !== null ? ` · ${percent(s.confidence)}` : ''}
              {s.childDocumentId && (
                <>
                  {' · '}
                  <a href={`/v1/documents/${s.childDocumentId}/file`} download={s.childDocumentName ?? undefined}>
                    Download {s.childDocumentName ?? 'file'}
                  </a>
                </>
              )}
              {s.childDocumentStatus && <span class={`status ${s.childDocumentStatus}`}> {s.childDocumentStatus}</span>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
