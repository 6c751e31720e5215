import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { ApiKey } from '../api.js';
import { Alert, ShownOnce } from '../components.js';

/** Settings › API keys: create (the key is shown once), rotate (the old key stops at once), revoke. */
export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<{ name: string; key: string; note: string } | null>(null);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'full' | 'read'>('full');

  const load = () =>
    api<{ data: ApiKey[] }>('/api/keys')
      .then((r) => setKeys(r.data))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, []);

  const act = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const k = await api<ApiKey>('/api/keys', { method: 'POST', json: { name, scopes: [scope] } });
      setFresh({ name: k.name, key: k.key!, note: 'Copy it now: it is not shown again.' });
      setName('');
    });
  };
  const rotate = (k: ApiKey) =>
    act(async () => {
      const r = await api<ApiKey>(`/api/keys/${k.id}/rotate`, { method: 'POST', json: {} });
      setFresh({ name: r.name, key: r.key!, note: `The old key (${k.prefix}…) no longer works. Copy the new one now: it is not shown again.` });
    });
  const revoke = (k: ApiKey) => {
    if (!confirm(`Revoke the key “${k.name}” (${k.prefix}…)? Programs using it stop working at once.`)) return;
    void act(async () => {
      await api(`/api/keys/${k.id}`, { method: 'DELETE' });
      setFresh(null);
    });
  };

  return (
    <section class="keys">
      <h1>API keys</h1>
      <p>Programs call the API with a key in the header <code>Authorization: Bearer svc_…</code>.</p>
      <form class="inline" onSubmit={create}>
        <label>
          Name
          <input value={name} required maxLength={255} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope((e.currentTarget as HTMLSelectElement).value as 'full' | 'read')}>
            <option value="full">full: everything</option>
            <option value="read">read: GET only</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      {fresh && (
        <ShownOnce label="Key" value={fresh.key} onDone={() => setFresh(null)}>
          New key <strong>{fresh.name}</strong>. {fresh.note}
        </ShownOnce>
      )}
      <Alert error={error} />
      {keys === null ? (
        <p role="status">Loading…</p>
      ) : keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <table class="keylist">
          <caption class="sr-only">Your API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.scopes.join(', ')}</td>
                <td>{new Date(k.created_at).toLocaleDateString()}</td>
                <td>{k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'never'}</td>
                <td class="actions">
                  <button type="button" onClick={() => void rotate(k)} aria-label={`Rotate ${k.name}`}>
                    Rotate
                  </button>
                  <button type="button" class="danger" onClick={() => revoke(k)} aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
