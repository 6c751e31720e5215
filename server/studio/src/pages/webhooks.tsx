import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Alert, ShownOnce } from '../components.js';

interface Webhook {
  webhook_id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  status: 'active' | 'inactive' | 'failing';
  last_delivery_at: string | null;
  secret?: string;
}

interface Delivery {
  delivery_id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  max_attempts: number;
  last_status_code: number | null;
  latency_ms: number | null;
  last_error: string | null;
  next_retry_at: string | null;
  created_at: string;
}

/** The event names a webhook may subscribe to, as the API documents them (/openapi.json). */
async function eventNames(): Promise<string[]> {
  try {
    const doc = await api<any>('/openapi.json');
    const schema = doc.paths?.['/api/webhooks']?.post?.requestBody?.content?.['application/json']?.schema;
    const items = schema?.properties?.events?.items;
    const names: string[] = items?.enum ?? items?.anyOf?.flatMap((x: { enum?: string[] }) => x.enum ?? []) ?? [];
    return names.filter((n) => n !== '*');
  } catch {
    return [];
  }
}

/** Settings › Webhooks: subscriptions, their signing secret (shown once), a test event, and the delivery log. */
export function WebhooksPage() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [names, setNames] = useState<string[]>([]);
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [picked, setPicked] = useState<string[]>([]);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [logVersion, setLogVersion] = useState(0);

  const load = () =>
    api<{ webhooks: Webhook[] }>('/api/webhooks?limit=100')
      .then((r) => setHooks(r.webhooks))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
    void eventNames().then(setNames);
  }, []);

  const act = async (fn: () => Promise<void>) => {
    setError(null);
    setNotice(null);
    try {
      await fn();
      await load();
      setLogVersion((v) => v + 1);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const h = await api<Webhook>('/api/webhooks', { method: 'POST', json: { url, events: all ? ['*'] : picked } });
      setSecret({ url: h.url, secret: h.secret! });
      setUrl('');
    });
  };

  return (
    <section class="webhooks">
      <h1>Webhooks</h1>
      <p>Events of your documents and jobs are POSTed to your URL, signed with the webhook's secret (header X-Svc-Signature).</p>
      <form onSubmit={create} class="hookform">
        <label>
          Endpoint URL
          <input type="url" required value={url} placeholder="https://example.com/quire-events" onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <fieldset>
          <legend>Events</legend>
          <label class="check">
            <input type="checkbox" checked={all} onChange={(e) => setAll((e.currentTarget as HTMLInputElement).checked)} /> All events
          </label>
          {!all && (
            <div class="eventlist">
              {names.map((n) => (
                <label key={n} class="check">
                  <input type="checkbox" checked={picked.includes(n)} onChange={(e) => setPicked((e.currentTarget as HTMLInputElement).checked ? [...picked, n] : picked.filter((x) => x !== n))} /> {n}
                </label>
              ))}
            </div>
          )}
        </fieldset>
        <button type="submit">Add webhook</button>
      </form>
      {secret && (
        <ShownOnce label="Secret" value={secret.secret} onDone={() => setSecret(null)}>
          Signing secret of <strong>{secret.url}</strong>. Copy it now: it is not shown again.
        </ShownOnce>
      )}
      <Alert error={error}>{notice}</Alert>
      {hooks === null ? (
        <p role="status">Loading…</p>
      ) : hooks.length === 0 ? (
        <p>No webhooks yet.</p>
      ) : (
        <ul class="hooks">
          {hooks.map((h) => (
            <li key={h.webhook_id} data-webhook-id={h.webhook_id}>
              <div class="hookhead">
                <code>{h.url}</code>
                <span class={`status ${h.status === 'active' ? 'completed' : h.status === 'failing' ? 'failed' : 'pending'}`}>{h.status}</span>
                <span class="meta">{h.events.join(', ')}</span>
              </div>
              <div class="actions">
                <button
                  type="button"
                  onClick={() =>
                    void act(async () => {
                      const r = await api<{ success: boolean; status_code: number | null; error: string | null }>(`/api/webhooks/${h.webhook_id}/test`, { method: 'POST' });
                      setOpen(h.webhook_id);
                      setNotice(r.success ? `Test event delivered (HTTP ${r.status_code}).` : `Test event not delivered: ${r.error ?? `HTTP ${r.status_code}`}`);
                    })
                  }
                >
                  Send test event
                </button>
                <button type="button" aria-expanded={open === h.webhook_id} onClick={() => setOpen(open === h.webhook_id ? null : h.webhook_id)}>
                  Deliveries
                </button>
                <button
                  type="button"
                  onClick={() =>
                    void act(async () => {
                      const r = await api<Webhook>(`/api/webhooks/${h.webhook_id}/rotate-secret`, { method: 'POST' });
                      setSecret({ url: r.url, secret: r.secret! });
                    })
                  }
                >
                  Rotate secret
                </button>
                <button
                  type="button"
                  class="danger"
                  onClick={() => {
                    if (confirm(`Delete the webhook to ${h.url} and its delivery log?`)) void act(async () => void (await api(`/api/webhooks/${h.webhook_id}`, { method: 'DELETE' })));
                  }}
                >
                  Delete
                </button>
              </div>
              {open === h.webhook_id && <DeliveryLog hookId={h.webhook_id} version={logVersion} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function DeliveryLog(props: { hookId: string; version: number }) {
  const [rows, setRows] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api<{ deliveries: Delivery[] }>(`/api/webhooks/${props.hookId}/deliveries?limit=50`)
      .then((r) => setRows(r.deliveries))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, [props.hookId, props.version]);
  const redeliver = async (d: Delivery) => {
    setError(null);
    try {
      await api(`/api/webhooks/${props.hookId}/deliveries/${d.delivery_id}/redeliver`, { method: 'POST' });
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  if (error) return <Alert error={error} />;
  if (!rows) return <p role="status">Loading the deliveries…</p>;
  if (!rows.length) return <p>No deliveries yet.</p>;
  return (
    <table class="deliveries">
      <caption class="sr-only">Delivery log</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">HTTP</th>
          <th scope="col">Latency</th>
          <th scope="col">When</th>
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr key={d.delivery_id} data-status={d.status}>
            <td>{d.event}</td>
            <td>
              <span class={`status ${d.status === 'delivered' ? 'completed' : d.status}`}>{d.status}</span>
              {d.last_error && <span class="error"> {d.last_error}</span>}
            </td>
            <td>
              {d.attempts}/{d.max_attempts}
            </td>
            <td>{d.last_status_code ?? '–'}</td>
            <td>{d.latency_ms === null ? '–' : `${d.latency_ms} ms`}</td>
            <td>{new Date(d.created_at).toLocaleString()}</td>
            <td>
              {d.status !== 'pending' && (
                <button type="button" class="link" onClick={() => void redeliver(d)}>
                  Redeliver
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
