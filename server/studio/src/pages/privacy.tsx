import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Alert, formatBytes } from '../components.js';

interface Consent {
  granted: boolean;
  granted_at?: string;
  revoked_at?: string;
  version: string;
}

interface ExportRequest {
  request_id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'expired';
  file_url: string | null;
  file_size: number | null;
  expires_at: string | null;
  created_at: string;
  error?: string;
}

interface Deletion {
  request_id: string | null;
  status: string | null;
  scheduled_at: string | null;
  can_cancel: boolean;
}

const OPTIONAL: { type: string; label: string }[] = [
  { type: 'marketing', label: 'News about the service by email (marketing)' },
  { type: 'analytics', label: 'Product analytics of how I use the service' },
];

/** Settings › Privacy: consents, an export of all one's data, and the deletion of the account (cancellable). */
export function PrivacyPage() {
  return (
    <section class="privacy">
      <h1>Privacy</h1>
      <Consents />
      <DataExport />
      <AccountDeletion />
    </section>
  );
}

function Consents() {
  const [state, setState] = useState<{ consents: Record<string, Consent>; current_version: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ consents: Record<string, Consent>; current_version: string }>('/api/gdpr/consent')
      .then(setState)
      .catch((e: Error) => setError(e.message));
  }, []);
  const set = async (type: string, granted: boolean) => {
    setError(null);
    try {
      setState(await api('/api/gdpr/consent', { method: 'POST', json: { consentType: type, granted } }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const since = (c?: Consent) => (c ? ` (${c.granted ? 'given' : 'withdrawn'} ${new Date((c.granted ? c.granted_at : c.revoked_at) ?? '').toLocaleDateString()}, policy ${c.version})` : '');
  return (
    <div class="card">
      <h2>Consents</h2>
      <Alert error={error} />
      {!state ? (
        !error && <p role="status">Loading…</p>
      ) : (
        <fieldset class="plain">
          <legend>Policy version {state.current_version}</legend>
          {(['terms', 'privacy'] as const).map((t) => (
            <label class="check" key={t}>
              <input type="checkbox" checked={!!state.consents[t]?.granted} disabled aria-describedby="required-help" /> {t === 'terms' ? 'Terms of service' : 'Privacy policy'} (required){since(state.consents[t])}
            </label>
          ))}
          {OPTIONAL.map((o) => (
            <label class="check" key={o.type}>
              <input type="checkbox" data-consent={o.type} checked={!!state.consents[o.type]?.granted} onChange={(e) => void set(o.type, (e.currentTarget as HTMLInputElement).checked)} /> {o.label}
              {since(state.consents[o.type])}
            </label>
          ))}
          <p id="required-help" class="hint">
            The terms and the privacy policy are needed for an account: to withdraw them, delete the account.
          </p>
        </fieldset>
      )}
    </div>
  );
}

function DataExport() {
  const [req, setReq] = useState<ExportRequest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<{ export: ExportRequest | null }>('/api/studio/privacy/export')
      .then((r) => setReq(r.export))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  // followed until it is ready
  const waiting = req?.status === 'pending' || req?.status === 'processing';
  useEffect(() => {
    if (!waiting) return;
    const t = setTimeout(() => void load(), 1500);
    return () => clearTimeout(t);
  }, [req]);
  const start = async () => {
    setError(null);
    try {
      await api('/api/gdpr/export', { method: 'POST' });
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="card">
      <h2>Export your data</h2>
      <p>A zip of your profile, documents with their parsed content, extractions, schemas, chat history, knowledge bases, key metadata, consents and audit log.</p>
      <button type="button" onClick={() => void start()} disabled={waiting}>
        Request an export
      </button>
      <Alert error={error} />
      {req && (
        <p class="export" data-status={req.status} aria-live="polite">
          Export of {new Date(req.created_at).toLocaleString()}: <span class={`status ${req.status === 'completed' ? 'completed' : req.status === 'failed' || req.status === 'expired' ? 'failed' : 'processing'}`}>{req.status}</span>
          {req.file_url && (
            <>
              {' '}
              · <a href={req.file_url}>Download the export</a> ({formatBytes(req.file_size ?? 0)}, until {new Date(req.expires_at!).toLocaleString()})
            </>
          )}
          {req.error && ` · ${req.error}`}
        </p>
      )}
    </div>
  );
}

function AccountDeletion() {
  const [d, setD] = useState<Deletion | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<Deletion>('/api/gdpr/delete-account')
      .then(setD)
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);
  const request = async (e: Event) => {
    e.preventDefault();
    if (!confirm('Delete your account and all its data once the grace period is over? You can cancel until then.')) return;
    setError(null);
    try {
      await api('/api/gdpr/delete-account', { method: 'POST', json: reason.trim() ? { reason: reason.trim() } : {} });
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const cancel = async () => {
    setError(null);
    try {
      await api(`/api/gdpr/delete-account?requestId=${d!.request_id}`, { method: 'DELETE' });
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const scheduled = d?.can_cancel;
  return (
    <div class="card danger-zone">
      <h2>Delete your account</h2>
      <Alert error={error} />
      {scheduled ? (
        <p class="deletion" data-status={d!.status ?? ''} role="status">
          Your account will be deleted on <strong>{new Date(d!.scheduled_at!).toLocaleString()}</strong>.{' '}
          <button type="button" onClick={() => void cancel()}>
            Cancel the deletion
          </button>
        </p>
      ) : (
        <form onSubmit={request}>
          {d?.status === 'cancelled' && <p class="hint">Your last deletion request was cancelled.</p>}
          <label>
            Reason (optional)
            <textarea rows={2} maxLength={2000} value={reason} onInput={(e) => setReason((e.currentTarget as HTMLTextAreaElement).value)} />
          </label>
          <button type="submit" class="danger">
            Delete my account
          </button>
        </form>
      )}
    </div>
  );
}
