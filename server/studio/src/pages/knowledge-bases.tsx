import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { DocumentRow } from '../api.js';
import { Alert, Link, percent } from '../components.js';

interface KnowledgeBase {
  id: string;
  name: string;
  description: string;
  document_count: number;
}

interface Citation {
  chunk_id: string;
  document_id: string;
  document_name: string;
  page: number;
  content: string;
  score: number;
}

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  citations?: Citation[];
  confidence?: number;
}

/** Knowledge bases: the list, and a form to make one. */
export function KnowledgeBasesPage() {
  const [list, setList] = useState<KnowledgeBase[] | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<{ knowledge_bases: KnowledgeBase[] }>('/api/knowledge-bases')
      .then((r) => setList(r.knowledge_bases))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api('/api/knowledge-bases', { method: 'POST', json: { name } });
      setName('');
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section>
      <h1>Knowledge bases</h1>
      <form class="inline" onSubmit={create}>
        <label>
          New knowledge base
          <input value={name} required maxLength={255} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Create</button>
      </form>
      <Alert error={error} />
      {list === null ? (
        <p role="status">Loading…</p>
      ) : list.length === 0 ? (
        <p>No knowledge bases yet.</p>
      ) : (
        <ul class="kbs">
          {list.map((kb) => (
            <li key={kb.id}>
              <Link to={`/knowledge-bases/${kb.id}`}>{kb.name}</Link> <span class="meta">{kb.document_count} document(s)</span>
              {kb.description && <p class="meta">{kb.description}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** One knowledge base: its documents (add one of yours), and a chat whose citations open the cited page. */
export function KnowledgeBasePage(props: { id: string }) {
  const [kb, setKb] = useState<KnowledgeBase | null>(null);
  const [docs, setDocs] = useState<{ id: string; name: string; status: string }[]>([]);
  const [mine, setMine] = useState<DocumentRow[]>([]);
  const [pick, setPick] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [question, setQuestion] = useState('');
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const log = useRef<HTMLOListElement>(null);

  const load = async () => {
    try {
      const [k, d, m] = await Promise.all([
        api<{ knowledge_base: KnowledgeBase }>(`/api/knowledge-bases/${props.id}`).then((r) => r.knowledge_base),
        api<{ documents: { id: string; name: string; status: string }[] }>(`/api/knowledge-bases/${props.id}/documents`),
        api<{ data: DocumentRow[] }>('/v1/documents?limit=100&status=completed'),
      ]);
      setKb(k);
      setDocs(d.documents);
      setMine(m.data);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => {
    void load();
  }, [props.id]);
  useEffect(() => {
    log.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [turns]);

  const add = async (e: Event) => {
    e.preventDefault();
    if (!pick) return;
    setError(null);
    try {
      await api(`/api/knowledge-bases/${props.id}/documents`, { method: 'POST', json: { document_id: pick } });
      setPick('');
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const ask = async (e: Event) => {
    e.preventDefault();
    const message = question.trim();
    if (!message) return;
    setTurns((t) => [...t, { role: 'user', content: message }]);
    setQuestion('');
    setAsking(true);
    setError(null);
    try {
      const r = await api<{ session_id: string; message: string; citations: Citation[]; confidence: number }>('/api/chat', { method: 'POST', json: { message, knowledge_base_id: props.id, ...(sessionId ? { session_id: sessionId } : {}) } });
      setSessionId(r.session_id);
      setTurns((t) => [...t, { role: 'assistant', content: r.message, citations: r.citations, confidence: r.confidence }]);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setAsking(false);
    }
  };

  if (!kb) return error ? <Alert error={error} /> : <p role="status">Loading…</p>;
  const inKb = new Set(docs.map((d) => d.id));
  return (
    <section class="kb">
      <div class="docbar">
        <Link to="/knowledge-bases">← Knowledge bases</Link>
        <h1>{kb.name}</h1>
      </div>
      <div class="kbbody">
        <div>
          <h2>Documents</h2>
          {docs.length === 0 ? (
            <p>No documents yet.</p>
          ) : (
            <ul class="kbdocs">
              {docs.map((d) => (
                <li key={d.id}>
                  {d.status === 'completed' ? <Link to={`/documents/${d.id}`}>{d.name}</Link> : d.name} <span class={`status ${d.status}`}>{d.status}</span>
                </li>
              ))}
            </ul>
          )}
          <form class="inline" onSubmit={add}>
            <label>
              Add a document
              <select value={pick} onChange={(e) => setPick((e.currentTarget as HTMLSelectElement).value)}>
                <option value="">Choose…</option>
                {mine
                  .filter((d) => !inKb.has(d.id))
                  .map((d) => (
                    <option key={d.id} value={d.id}>
                      {d.name}
                    </option>
                  ))}
              </select>
            </label>
            <button type="submit" disabled={!pick}>
              Add
            </button>
          </form>
        </div>
        <div class="chat">
          <h2>Chat</h2>
          <ol class="turns" ref={log} aria-live="polite">
            {turns.map((t, i) => (
              <li key={i} class={`turn ${t.role}`}>
                <span class="sr-only">{t.role === 'user' ? 'You:' : 'Answer:'}</span>
                <p>{t.content}</p>
                {t.role === 'assistant' && t.confidence !== undefined && <p class="meta">Confidence {percent(t.confidence)}</p>}
                {t.citations && t.citations.length > 0 && (
                  <ol class="citations" aria-label="Sources">
                    {t.citations.map((c, n) => (
                      <li key={n}>
                        <Link to={`/documents/${c.document_id}?page=${c.page}&chunk=${encodeURIComponent(c.chunk_id)}`}>
                          [{n + 1}] {c.document_name}, page {c.page}
                        </Link>
                        <span class="meta"> {c.content.length > 140 ? `${c.content.slice(0, 140)}…` : c.content}</span>
                      </li>
                    ))}
                  </ol>
                )}
              </li>
            ))}
          </ol>
          <form class="ask" onSubmit={ask}>
            <label>
              Ask a question
              <textarea rows={2} value={question} onInput={(e) => setQuestion((e.currentTarget as HTMLTextAreaElement).value)} onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) {
                  e.preventDefault();
                  (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
                }
              }} />
            </label>
            <button type="submit" disabled={asking}>
              {asking ? 'Asking…' : 'Ask'}
            </button>
          </form>
          <Alert error={error} />
        </div>
      </div>
    </section>
  );
}
