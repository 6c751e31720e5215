import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { DocumentRow } from '../api.js';
import { Alert } from '../components.js';

interface Workflow {
  id: string;
  name: string;
  description: string | null;
  definition: { steps: { id: string; type: string }[] };
  trigger_type: string;
  /** every automatic trigger (a manual run is always possible) */
  triggers?: { type: string; primary?: boolean }[];
  enabled: boolean;
}

interface Execution {
  id: string;
  status: string;
  triggered_by: string;
  started_at: string;
  completed_at: string | null;
  error: string | null;
  execution_log: { step_id: string; type?: string; status: string; duration_ms: number; error?: string | null; output?: unknown }[];
}

const POLL_MS = 2000;

/** Workflows: make one from a template, run it on a document, and follow its executions step by step. */
export function WorkflowsPage() {
  const [flows, setFlows] = useState<Workflow[] | null>(null);
  const [templates, setTemplates] = useState<{ id: string; name: string }[]>([]);
  const [docs, setDocs] = useState<DocumentRow[]>([]);
  const [template, setTemplate] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [runs, setRuns] = useState(0);

  const load = () =>
    api<{ workflows: Workflow[] }>('/api/workflows')
      .then((r) => setFlows(r.workflows))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
    api<{ templates: { id: string; name: string }[] }>('/api/workflows/templates')
      .then((r) => setTemplates(r.templates))
      .catch(() => {});
    api<{ data: DocumentRow[] }>('/v1/documents?limit=100&status=completed')
      .then((r) => setDocs(r.data))
      .catch(() => {});
  }, []);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api<{ workflow: Workflow }>('/api/workflows/templates', { method: 'POST', json: { template_id: template } });
      setOpen(r.workflow.id);
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const run = async (w: Workflow, documentId: string) => {
    setError(null);
    try {
      await api(`/api/workflows/${w.id}/execute`, { method: 'POST', json: { trigger_data: documentId ? { document_id: documentId } : {} } });
      setOpen(w.id);
      setRuns((n) => n + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <section>
      <h1>Workflows</h1>
      <form class="inline" onSubmit={create}>
        <label>
          New workflow from a template
          <select value={template} required onChange={(e) => setTemplate((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">Choose…</option>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={!template}>
          Create
        </button>
      </form>
      <Alert error={error} />
      {flows === null ? (
        <p role="status">Loading…</p>
      ) : flows.length === 0 ? (
        <p>No workflows yet.</p>
      ) : (
        <ul class="hooks">
          {flows.map((w) => (
            <li key={w.id} data-workflow-id={w.id}>
              <div class="hookhead">
                <strong>{w.name}</strong>
                <span class={`status ${w.enabled ? 'completed' : 'pending'}`}>{w.enabled ? 'enabled' : 'disabled'}</span>
                <span class="meta">
                  {w.triggers?.length ? w.triggers.map((t) => t.type).join(' + ') : w.trigger_type} · {w.definition.steps.map((s) => s.type).join(' → ')}
                </span>
              </div>
              <RunForm workflow={w} docs={docs} onRun={run} />
              <button type="button" class="link" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                Executions
              </button>
              {open === w.id && <Executions workflowId={w.id} version={runs} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function RunForm(props: { workflow: Workflow; docs: DocumentRow[]; onRun: (w: Workflow, documentId: string) => Promise<void> }) {
  const [doc, setDoc] = useState('');
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        void props.onRun(props.workflow, doc);
      }}
    >
      <label>
        Document for {props.workflow.name}
        <select value={doc} onChange={(e) => setDoc((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">(none)</option>
          {props.docs.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Run now</button>
    </form>
  );
}

/** characters of a step's output shown (the whole of it stays in the API's execution log) */
const OUTPUT_SHOWN = 20_000;

/** A step's output as indented JSON, folded; long outputs are cut with a note. */
function StepOutput(props: { value: unknown; step: string }) {
  if (props.value === undefined || props.value === null) return <span class="meta">none</span>;
  const text = JSON.stringify(props.value, null, 2) ?? String(props.value);
  const shown = text.length > OUTPUT_SHOWN ? `${text.slice(0, OUTPUT_SHOWN)}\n… (${text.length - OUTPUT_SHOWN} more characters in the API's execution log)` : text;
  return (
    <details class="step-output">
      <summary>{text.length <= 60 ? text.replace(/\s+/g, ' ') : `${text.length} characters`}</summary>
      <pre class="source" tabIndex={0} aria-label={`Output of ${props.step}`}>
        {shown}
      </pre>
    </details>
  );
}

/** The executions of a workflow, refreshed while one is running, each with its step log. */
function Executions(props: { workflowId: string; version: number }) {
  const [rows, setRows] = useState<Execution[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<{ executions: Execution[] }>(`/api/workflows/${props.workflowId}/executions?limit=20`)
      .then((r) => setRows(r.executions))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, [props.workflowId, props.version]);
  const running = !!rows?.some((x) => x.status === 'running' || x.status === 'pending');
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(t);
  }, [running]);
  if (error) return <Alert error={error} />;
  if (!rows) return <p role="status">Loading the executions…</p>;
  if (!rows.length) return <p>No executions yet.</p>;
  return (
    <ol class="executions">
      {rows.map((x) => (
        <li key={x.id} data-status={x.status}>
          <span class={`status ${x.status === 'running' ? 'processing' : x.status}`}>{x.status}</span> {x.triggered_by} · {new Date(x.started_at).toLocaleString()}
          {x.error && <span class="error"> {x.error}</span>}
          <table class="deliveries">
            <caption class="sr-only">Steps</caption>
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
                <th scope="col">Output</th>
              </tr>
            </thead>
            <tbody>
              {x.execution_log.map((s) => (
                <tr key={s.step_id}>
                  <td>
                    {s.step_id}
                    {s.type && s.type !== s.step_id ? ` (${s.type})` : ''}
                  </td>
                  <td>{s.status}</td>
                  <td>{s.duration_ms} ms</td>
                  <td>{s.error ?? ''}</td>
                  <td>
                    <StepOutput value={s.output} step={s.step_id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </li>
      ))}
    </ol>
  );
}
