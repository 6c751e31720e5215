import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { ExtractionRun, FieldResult } from '../api.js';
import { Alert, percent } from '../components.js';
import type { Selection } from './selection.js';

interface SchemaChoice {
  id: string;
  name: string;
  group: string;
}

const TYPES = ['string', 'number', 'date', 'boolean', 'email', 'phone', 'address', 'currency'];
const DEFAULT_FIELDS = 'invoice_number: string\ndate: date\ntotal: number';

/** "name: type" lines into field definitions; an unknown type is kept as written (the API tells what is wrong). */
function parseFields(text: string) {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [name, type] = l.split(':').map((x) => x.trim());
      return { name: name!, type: type || 'string' };
    });
}

const show = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * Extraction on the document in view: pick a saved or prebuilt schema or write fields, run it with
 * citations, see each field with its confidence; a field's button shows its evidence box on the page; a
 * value can be corrected (saved as a correction of this extraction).
 */
export function ExtractionPanel(props: { documentId: string; selected: Selection; onEvidence: (s: Selection) => void }) {
  const [schemas, setSchemas] = useState<SchemaChoice[]>([]);
  const [choice, setChoice] = useState('custom');
  const [fields, setFields] = useState(DEFAULT_FIELDS);
  const [run, setRun] = useState<ExtractionRun | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    Promise.all([api<{ id: string; name: string }[]>('/api/extract/schemas').catch(() => []), api<{ schemas: { id: string; name: string }[] }>('/api/extract/schemas/prebuilt').catch(() => ({ schemas: [] }))]).then(([own, pre]) =>
      setSchemas([...own.map((s) => ({ id: s.id, name: s.name, group: 'Your schemas' })), ...pre.schemas.map((s) => ({ id: s.id, name: s.name, group: 'Prebuilt' }))]),
    );
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, unknown> = { document_id: props.documentId, include_citations: true };
      if (choice === 'custom') body.config = { fields: parseFields(fields) };
      else body.schema_id = choice;
      setRun(await api<ExtractionRun>('/api/extract/run', { method: 'POST', json: body }));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const groups = [...new Set(schemas.map((s) => s.group))];
  return (
    <div class="extract">
      <form onSubmit={submit}>
        <label>
          Schema
          <select value={choice} onChange={(e) => setChoice((e.currentTarget as HTMLSelectElement).value)}>
            <option value="custom">Write fields…</option>
            {groups.map((g) => (
              <optgroup key={g} label={g}>
                {schemas
                  .filter((s) => s.group === g)
                  .map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.name}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        </label>
        {choice === 'custom' && (
          <label>
            <span>
              Fields, one per line as <code>name: type</code> ({TYPES.join(', ')}, …)
            </span>
            <textarea rows={5} value={fields} onInput={(e) => setFields((e.currentTarget as HTMLTextAreaElement).value)} spellcheck={false} />
          </label>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Extracting…' : 'Run extraction'}
        </button>
      </form>
      <Alert error={error} />
      {run && <Results run={run} selected={props.selected} onEvidence={props.onEvidence} onCorrected={setRun} />}
    </div>
  );
}

function Results(props: { run: ExtractionRun; selected: Selection; onEvidence: (s: Selection) => void; onCorrected: (r: ExtractionRun) => void }) {
  const { run } = props;
  return (
    <div class="results">
      <p>
        Overall confidence <strong>{percent(run.overall_confidence)}</strong>
      </p>
      <ul class="fields">
        {run.field_results.map((f) => (
          <FieldRow key={f.field} extractionId={run.extraction_id} field={f} active={props.selected?.kind === 'evidence' && props.selected.field === f.field} onEvidence={props.onEvidence} />
        ))}
      </ul>
    </div>
  );
}

function FieldRow(props: { extractionId: string; field: FieldResult; active: boolean; onEvidence: (s: Selection) => void }) {
  const { field: f } = props;
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(show(f.value));
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ev = f.evidence;

  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api('/api/extract/corrections', { method: 'POST', json: { extraction_id: props.extractionId, field_id: f.field, corrected_value: value } });
      setSaved(value);
      setEditing(false);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <li class={`field${props.active ? ' active' : ''}`} data-field={f.field}>
      <div class="fieldhead">
        {ev ? (
          <button type="button" class="fieldname" aria-pressed={props.active} onClick={() => props.onEvidence({ kind: 'evidence', field: f.field, page: ev.page, bbox: ev.bbox, text: ev.text, confidence: ev.confidence })}>
            {f.field}
          </button>
        ) : (
          <span class="fieldname">{f.field}</span>
        )}
        <span class="conf" title="confidence">
          {percent(f.confidence)}
        </span>
      </div>
      {editing ? (
        <form class="correct" onSubmit={save}>
          <label>
            Correct value of {f.field}
            <input value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <button type="submit">Save correction</button>
          <button type="button" class="link" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <div class="value">
          <span>{saved ?? (show(f.value) || <em>not found</em>)}</span>
          {saved !== null && <span class="badge">corrected</span>}
          <button type="button" class="link" onClick={() => setEditing(true)} aria-label={`Correct ${f.field}`}>
            Correct
          </button>
        </div>
      )}
      {ev && <p class="evidence-text">Page {ev.page}: “{ev.text}”</p>}
      <Alert error={error} />
    </li>
  );
}
