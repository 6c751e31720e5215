import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { BBox } from '../api.js';
import { Alert, Link, formatBytes } from '../components.js';

export interface EditElement {
  id: string;
  type: 'text_field' | 'date_field' | 'number_field' | 'checkbox' | 'radio' | 'dropdown' | 'signature';
  label: string;
  page: number;
  bbox: BBox;
  required: boolean;
  current_value: string;
  checked?: boolean;
  options?: string[];
  format?: string;
  source: 'acroform' | 'blank';
}

interface RunResult {
  success: boolean;
  job_id: string;
  edit_id: string;
  filled_elements: { element_id: string; value: unknown; applied?: boolean }[];
  output_file_url: string | null;
  output_file_size: number | null;
  warnings?: string[];
  verification_result?: { pass: boolean; warnings: string[]; checkedFields: string[] } | null;
}

/** The element ids are field names: an id made safe for a DOM id. */
export const elementDomId = (id: string) => `edit-el-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/**
 * The Edit tab of a PDF or image: detect its fillable fields (POST /api/edit/detect; drawn on the page by
 * the document view), fill values in this form, run the fill with verification (POST /api/edit/run), and
 * link the filled file. "Save as project" keeps the run for later reruns.
 */
export function EditPanel(props: { documentId: string; elements: EditElement[] | null; onElements: (e: EditElement[] | null) => void; active: string | null; onActive: (id: string | null) => void }) {
  const { documentId, elements } = props;
  const [jobId, setJobId] = useState<string | null>(null);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [result, setResult] = useState<RunResult | null>(null);
  const [busy, setBusy] = useState<'detect' | 'run' | 'save' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [project, setProject] = useState<string | null>(null);

  const detect = async () => {
    setError(null);
    setResult(null);
    setBusy('detect');
    try {
      const r = await api<{ job_id: string; elements: EditElement[] }>('/api/edit/detect', { method: 'POST', json: { document_id: documentId, config: { include_checkboxes: true } } });
      setJobId(r.job_id);
      setValues(Object.fromEntries(r.elements.map((e) => [e.id, e.type === 'checkbox' ? !!e.checked : e.current_value ?? ''])));
      props.onElements(r.elements);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };

  const run = async (ev: Event) => {
    ev.preventDefault();
    if (!elements || !jobId) return;
    setError(null);
    setBusy('run');
    try {
      // only what was filled in (an empty text field is left as it is)
      const mappings = elements.filter((e) => (e.type === 'checkbox' ? values[e.id] !== !!e.checked : values[e.id] !== '' && values[e.id] !== (e.current_value ?? ''))).map((e) => ({ elementId: e.id, value: values[e.id] }));
      setResult(await api<RunResult>('/api/edit/run', { method: 'POST', json: { edit_job_id: jobId, mappings, verify: true } }));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };

  const save = async () => {
    if (!result) return;
    setError(null);
    setBusy('save');
    try {
      const r = await api<{ project: { id: string; name: string } }>('/api/edit/projects', { method: 'POST', json: { document_id: documentId, edit_job_id: result.job_id } });
      setProject(r.project.name);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  };

  // a field picked on the page: its input gets the focus
  useEffect(() => {
    if (props.active) document.getElementById(elementDomId(props.active))?.focus();
  }, [props.active]);

  const set = (id: string, v: string | boolean) => setValues({ ...values, [id]: v });
  const v = result?.verification_result;
  return (
    <div class="edit">
      <p class="hint">Find the fields of this form, fill them in, and get a filled copy checked by reading it back.</p>
      <button type="button" onClick={() => void detect()} disabled={busy !== null}>
        {busy === 'detect' ? 'Detecting…' : elements ? 'Detect again' : 'Detect fields'}
      </button>
      <Alert error={error} />
      {elements && elements.length === 0 && <p>No fillable fields were found.</p>}
      {elements && elements.length > 0 && (
        <form class="editform" onSubmit={run}>
          <h2>Fields ({elements.length})</h2>
          {elements.map((e) => (
            <div key={e.id} class={`editfield${props.active === e.id ? ' active' : ''}`} data-element={e.id}>
              {e.type === 'checkbox' ? (
                <label class="check">
                  <input id={elementDomId(e.id)} type="checkbox" checked={!!values[e.id]} onFocus={() => props.onActive(e.id)} onChange={(x) => set(e.id, (x.currentTarget as HTMLInputElement).checked)} /> {e.label || e.id}
                </label>
              ) : e.options?.length ? (
                <label>
                  {e.label || e.id}
                  <select id={elementDomId(e.id)} value={String(values[e.id] ?? '')} onFocus={() => props.onActive(e.id)} onChange={(x) => set(e.id, (x.currentTarget as HTMLSelectElement).value)}>
                    <option value="">(empty)</option>
                    {e.options.map((o) => (
                      <option key={o} value={o}>
                        {o}
                      </option>
                    ))}
                  </select>
                </label>
              ) : (
                <label>
                  {e.label || e.id}
                  {e.required ? ' (required)' : ''}
                  <input
                    id={elementDomId(e.id)}
                    value={String(values[e.id] ?? '')}
                    inputMode={e.type === 'number_field' ? 'decimal' : undefined}
                    placeholder={e.type === 'date_field' ? e.format ?? 'date' : undefined}
                    onFocus={() => props.onActive(e.id)}
                    onInput={(x) => set(e.id, (x.currentTarget as HTMLInputElement).value)}
                  />
                </label>
              )}
              <span class="meta">
                {e.type.replace('_', ' ')} · page {e.page} · {e.source === 'acroform' ? 'form field' : 'blank on the page'}
              </span>
            </div>
          ))}
          <button type="submit" disabled={busy !== null}>
            {busy === 'run' ? 'Filling…' : 'Fill and verify'}
          </button>
        </form>
      )}
      {result && (
        <div class={`verification ${v?.pass ? 'pass' : 'fail'}`} data-pass={v?.pass ? 'true' : 'false'} role="status">
          <h2>{v ? (v.pass ? 'Verification passed' : 'Verification found problems') : 'Filled'}</h2>
          <p>
            {result.filled_elements.length} field{result.filled_elements.length === 1 ? '' : 's'} filled
            {v ? `; ${v.checkedFields.length} read back from the output` : ''}.
          </p>
          {v && v.warnings.length > 0 && (
            <ul>
              {v.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          )}
          {result.output_file_url && (
            <p>
              <a href={result.output_file_url} target="_blank" rel="noopener">
                Open the filled file
              </a>{' '}
              ({formatBytes(result.output_file_size ?? 0)}; the link works for an hour)
            </p>
          )}
          {project ? (
            <p>
              Saved as the project <Link to="/edit-projects">{project}</Link>.
            </p>
          ) : (
            <button type="button" onClick={() => void save()} disabled={busy !== null}>
              Save as project
            </button>
          )}
        </div>
      )}
    </div>
  );
}

interface Project {
  id: string;
  name: string;
  document_id: string;
  created_at: string;
  updated_at: string;
}

interface ProjectRun {
  version: number;
  status: string;
  fields_filled: number;
  output_file_url: string | null;
  verification_result: { pass: boolean } | null;
  created_at: string;
}

/** Edit projects: each with its document and its runs (version, fields filled, verification, output). */
export function EditProjectsPage() {
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<{ projects: Project[] }>('/api/edit/projects')
      .then((r) => setProjects(r.projects))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  return (
    <section class="projects">
      <h1>Edit projects</h1>
      <p>A project keeps a form and the values it was filled with; run it again to make a new version. Start one from the Edit tab of a document.</p>
      <Alert error={error} />
      {projects === null ? (
        !error && <p role="status">Loading…</p>
      ) : projects.length === 0 ? (
        <p>No projects yet.</p>
      ) : (
        <ul class="hooks">
          {projects.map((p) => (
            <ProjectItem key={p.id} project={p} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ProjectItem(props: { project: Project }) {
  const p = props.project;
  const [runs, setRuns] = useState<ProjectRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = () =>
    api<{ runs: ProjectRun[] }>(`/api/edit/projects/${p.id}/runs`)
      .then((r) => setRuns(r.runs))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, [p.id]);
  const rerun = async () => {
    setError(null);
    setBusy(true);
    try {
      await api(`/api/edit/projects/${p.id}/rerun`, { method: 'POST', json: { verify: true } });
      await load();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li data-project={p.name}>
      <div class="hookhead">
        <strong>{p.name}</strong>
        <Link to={`/documents/${p.document_id}`}>Open the document</Link>
        <button type="button" onClick={() => void rerun()} disabled={busy} aria-label={`Run ${p.name} again`}>
          {busy ? 'Running…' : 'Run again'}
        </button>
      </div>
      <Alert error={error} />
      {runs && runs.length > 0 && (
        <table class="deliveries">
          <caption class="sr-only">Runs of {p.name}</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Fields filled</th>
              <th scope="col">Verification</th>
              <th scope="col">Output</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.version}>
                <td>{r.version}</td>
                <td>{r.status}</td>
                <td>{r.fields_filled}</td>
                <td>{r.verification_result ? (r.verification_result.pass ? 'passed' : 'problems') : '—'}</td>
                <td>{r.output_file_url ? <a href={r.output_file_url}>filled file</a> : '—'}</td>
                <td>{new Date(r.created_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {runs && runs.length === 0 && <p class="hint">Not run from the project yet (the run it was saved from is on the document).</p>}
    </li>
  );
}
