import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { Alert } from '../components.js';

type Role = 'owner' | 'admin' | 'member' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

interface Organization {
  id: string;
  name: string;
  slug: string;
  role: Role;
  two_factor_required?: boolean;
  created_at: string;
}

interface Member {
  id: string;
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  created_at: string;
}

interface Invitation {
  id: string;
  organization: { id: string; name: string; slug: string };
  role: Role;
  expires_at: string;
}

interface OrgSettings {
  default_knowledge_base_id: string | null;
  billing_email: string | null;
  allowed_domains: string[];
  require_2fa: boolean;
  data_retention_days: number | null;
  hipaa_enabled: boolean;
}

/** What a role may do (the API refuses the rest with 403; the page disables it beforehand and says why). */
const may = {
  manageMembers: (r: Role) => r === 'owner' || r === 'admin',
  grantOwner: (r: Role) => r === 'owner',
  /** admins cannot change or remove owners */
  touch: (r: Role, target: Role) => r === 'owner' || (r === 'admin' && target !== 'owner'),
  settings: (r: Role) => r === 'owner' || r === 'admin',
  transfer: (r: Role) => r === 'owner',
};

/** A slug from a name: lowercase letters, digits and single hyphens (the API checks it again). */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);

const value = (e: Event) => (e.currentTarget as HTMLInputElement).value;

/** Settings › Organizations: the caller's organizations, their members and roles, and their settings. */
export function OrganizationsPage(props: { userId: string }) {
  const [orgs, setOrgs] = useState<Organization[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [invitations, setInvitations] = useState<Invitation[]>([]);

  const load = () =>
    Promise.all([api<{ organizations: Organization[] }>('/api/organizations'), api<{ invitations: Invitation[] }>('/api/user/invitations')])
      .then(([r, i]) => {
        setOrgs(r.organizations);
        setInvitations(i.invitations);
      })
      .catch((e: Error) => setError(e.message));
  const answer = async (i: Invitation, how: 'accept' | 'decline') => {
    setError(null);
    try {
      await api(`/api/user/invitations/${i.id}/${how}`, { method: 'POST' });
      await load();
      if (how === 'accept') setOpen(i.organization.id);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api<{ organization: Organization }>('/api/organizations', { method: 'POST', json: { name, slug } });
      setName('');
      setSlug('');
      setSlugEdited(false);
      await load();
      setOpen(r.organization.id);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const current = orgs?.find((o) => o.id === open) ?? null;
  return (
    <section class="orgs">
      <h1>Organizations</h1>
      <p>Documents, knowledge bases and keys of an organization are shared by its members, each with a role: owner, admin, member or viewer (read only).</p>
      <form class="inline" onSubmit={create}>
        <label>
          Organization name
          <input
            value={name}
            required
            maxLength={255}
            onInput={(e) => {
              setName(value(e));
              if (!slugEdited) setSlug(slugOf(value(e)));
            }}
          />
        </label>
        <label>
          Slug
          <input
            value={slug}
            required
            maxLength={64}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            title="lowercase letters, digits and single hyphens"
            aria-describedby="slug-help"
            onInput={(e) => {
              setSlug(value(e));
              setSlugEdited(true);
            }}
          />
        </label>
        <button type="submit">Create organization</button>
      </form>
      <p id="slug-help" class="hint">
        The slug is unique across this service: lowercase letters, digits and single hyphens (e.g. acme-legal).
      </p>
      <Alert error={error} />
      {invitations.length > 0 && (
        <section aria-label="Your invitations">
          <h2>Invitations</h2>
          <ul class="invitations">
            {invitations.map((i) => (
              <li key={i.id}>
                {i.organization.name} invites you as {i.role}{' '}
                <button type="button" onClick={() => void answer(i, 'accept')} aria-label={`Accept the invitation to ${i.organization.name}`}>
                  Accept
                </button>{' '}
                <button type="button" onClick={() => void answer(i, 'decline')} aria-label={`Decline the invitation to ${i.organization.name}`}>
                  Decline
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {orgs === null ? (
        <p role="status">Loading…</p>
      ) : orgs.length === 0 ? (
        <p>You belong to no organization yet.</p>
      ) : (
        <table class="keylist orglist">
          <caption class="sr-only">Your organizations</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Slug</th>
              <th scope="col">Your role</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {orgs.map((o) => (
              <tr key={o.id} data-org={o.slug}>
                <td>{o.name}</td>
                <td>
                  <code>{o.slug}</code>
                </td>
                <td>
                  <span class={`role r-${o.role}`}>{o.role}</span>
                  {o.two_factor_required && <span class="status failed"> needs two-factor</span>}
                </td>
                <td class="actions">
                  <button type="button" aria-expanded={open === o.id} aria-controls="org-detail" onClick={() => setOpen(open === o.id ? null : o.id)} aria-label={`Manage ${o.name}`}>
                    {open === o.id ? 'Close' : 'Manage'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {current && (
        <OrganizationDetail
          key={current.id}
          org={current}
          userId={props.userId}
          onChanged={load}
          onLeft={() => {
            setOpen(null);
            void load();
          }}
        />
      )}
    </section>
  );
}

function OrganizationDetail(props: { org: Organization; userId: string; onChanged: () => void; onLeft: () => void }) {
  const { org } = props;
  const role = org.role;
  const [members, setMembers] = useState<Member[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [who, setWho] = useState('');
  const [newRole, setNewRole] = useState<Role>('member');
  const [heir, setHeir] = useState('');

  const load = () =>
    api<{ members: Member[] }>(`/api/organizations/${org.id}/members`)
      .then((r) => setMembers(r.members))
      .catch((e: Error) => setError(e.message));
  useEffect(() => {
    void load();
  }, [org.id]);

  const act = async (fn: () => Promise<string | void>) => {
    setError(null);
    setNotice(null);
    try {
      const msg = await fn();
      if (msg) setNotice(msg);
      await load();
      props.onChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const add = (e: Event) => {
    e.preventDefault();
    const id = who.trim();
    const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
    void act(async () => {
      // an invitation: the person joins once they accept it (on this page, under Invitations)
      await api(`/api/organizations/${org.id}/members`, { method: 'POST', json: { ...(byId ? { user_id: id } : { email: id }), role: newRole } });
      setWho('');
      return `Invitation sent to ${id} as ${newRole}: they join once they accept it.`;
    });
  };
  const changeRole = (m: Member, r: Role) =>
    act(async () => {
      await api(`/api/organizations/${org.id}/members/${m.user_id}`, { method: 'PATCH', json: { role: r } });
      return `${m.email} is now ${r}.`;
    });
  const remove = (m: Member) => {
    if (!confirm(`Remove ${m.email} from ${org.name}?`)) return;
    void act(async () => {
      await api(`/api/organizations/${org.id}/members/${m.user_id}`, { method: 'DELETE' });
      return `${m.email} removed.`;
    });
  };
  const transfer = (e: Event) => {
    e.preventDefault();
    const m = members?.find((x) => x.user_id === heir);
    if (!m || !confirm(`Make ${m.email} the owner of ${org.name}? You become an admin.`)) return;
    void act(async () => {
      await api(`/api/organizations/${org.id}/transfer-ownership`, { method: 'POST', json: { user_id: heir } });
      return `${m.email} is the owner now; you are an admin.`;
    });
  };
  const leave = async () => {
    if (!confirm(`Leave ${org.name}? You lose access to its documents.`)) return;
    setError(null);
    try {
      await api(`/api/organizations/${org.id}/leave`, { method: 'POST' });
      props.onLeft();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const owners = members?.filter((m) => m.role === 'owner').length ?? 0;
  const lastOwner = role === 'owner' && owners <= 1;
  const others = members?.filter((m) => m.user_id !== props.userId) ?? [];
  return (
    <div id="org-detail" class="orgdetail" role="region" aria-label={`Organization ${org.name}`}>
      <h2>
        {org.name} <span class="meta">· you are {role === 'admin' || role === 'owner' ? 'an' : 'a'} {role}</span>
      </h2>
      <Alert error={error} />
      {notice && <Alert>{notice}</Alert>}
      <h3>Members</h3>
      {!may.manageMembers(role) && <p class="hint">Only owners and admins invite, change or remove members.</p>}
      <form class="inline" onSubmit={add}>
        <label>
          Email or user id
          <input value={who} required maxLength={255} disabled={!may.manageMembers(role)} onInput={(e) => setWho(value(e))} />
        </label>
        <label>
          Role of the new member
          <select value={newRole} disabled={!may.manageMembers(role)} onChange={(e) => setNewRole(value(e) as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r} disabled={r === 'owner' && !may.grantOwner(role)}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={!may.manageMembers(role)}>
          Invite member
        </button>
      </form>
      {members === null ? (
        <p role="status">Loading…</p>
      ) : (
        <table class="keylist members">
          <caption class="sr-only">Members of {org.name}</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => {
              const self = m.user_id === props.userId;
              const canTouch = !self && may.touch(role, m.role);
              return (
                <tr key={m.user_id} data-member={m.email}>
                  <td>
                    {m.name ? `${m.name} · ` : ''}
                    {m.email}
                    {self && ' (you)'}
                  </td>
                  <td>
                    <select aria-label={`Role of ${m.email}`} value={m.role} disabled={!canTouch} onChange={(e) => void changeRole(m, value(e) as Role)}>
                      {ROLES.map((r) => (
                        <option key={r} value={r} disabled={r === 'owner' && !may.grantOwner(role)}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>{new Date(m.created_at).toLocaleDateString()}</td>
                  <td class="actions">
                    <button type="button" class="danger" disabled={!canTouch} onClick={() => remove(m)} aria-label={`Remove ${m.email}`}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {may.transfer(role) && (
        <form class="inline" onSubmit={transfer}>
          <label>
            Transfer ownership to
            <select value={heir} required onChange={(e) => setHeir(value(e))}>
              <option value="">choose a member…</option>
              {others.map((m) => (
                <option key={m.user_id} value={m.user_id}>
                  {m.email}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={!heir}>
            Transfer ownership
          </button>
        </form>
      )}
      <p>
        <button type="button" class="danger" disabled={lastOwner} aria-describedby={lastOwner ? 'leave-help' : undefined} onClick={() => void leave()}>
          Leave {org.name}
        </button>
        {lastOwner && (
          <span id="leave-help" class="hint">
            {' '}
            You are its only owner: transfer ownership first.
          </span>
        )}
      </p>
      <SettingsForm org={org} />
    </div>
  );
}

function SettingsForm(props: { org: Organization }) {
  const { org } = props;
  const editable = may.settings(org.role);
  const [s, setS] = useState<OrgSettings | null>(null);
  const [domains, setDomains] = useState('');
  const [retention, setRetention] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    api<{ settings: OrgSettings }>(`/api/organizations/${org.id}/settings`)
      .then((r) => {
        setS(r.settings);
        setDomains(r.settings.allowed_domains.join(', '));
        setRetention(r.settings.data_retention_days === null ? '' : String(r.settings.data_retention_days));
      })
      .catch((e: Error) => setError(e.message));
  }, [org.id]);
  if (!s) return error ? <Alert error={error} /> : null;

  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      const body = {
        billing_email: s.billing_email?.trim() || null,
        allowed_domains: domains
          .split(/[\s,]+/)
          .map((d) => d.trim())
          .filter(Boolean),
        require_2fa: s.require_2fa,
        data_retention_days: retention.trim() ? Number(retention) : null,
        hipaa_enabled: s.hipaa_enabled,
      };
      const r = await api<{ settings: OrgSettings }>(`/api/organizations/${org.id}/settings`, { method: 'PATCH', json: body });
      setS(r.settings);
      setSaved(true);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <form class="orgsettings" onSubmit={save}>
      <h3>Settings</h3>
      {!editable && <p class="hint">Only owners and admins change the settings.</p>}
      <fieldset disabled={!editable}>
        <legend class="sr-only">Settings of {org.name}</legend>
        <label>
          Billing email
          <input type="email" value={s.billing_email ?? ''} maxLength={255} onInput={(e) => setS({ ...s, billing_email: value(e) })} />
        </label>
        <label>
          Allowed email domains (comma-separated; empty: any)
          <input value={domains} onInput={(e) => setDomains(value(e))} />
        </label>
        <label>
          Delete resources older than (days; empty: keep)
          <input type="number" min={1} max={36500} value={retention} onInput={(e) => setRetention(value(e))} />
        </label>
        <label class="check">
          <input type="checkbox" checked={s.require_2fa} onChange={(e) => setS({ ...s, require_2fa: (e.currentTarget as HTMLInputElement).checked })} /> Require two-factor authentication
        </label>
        <label class="check">
          <input type="checkbox" checked={s.hipaa_enabled} onChange={(e) => setS({ ...s, hipaa_enabled: (e.currentTarget as HTMLInputElement).checked })} /> Handles protected health information (HIPAA)
        </label>
        <button type="submit">Save settings</button>
      </fieldset>
      <Alert error={error} />
      {saved && <Alert>Settings saved.</Alert>}
    </form>
  );
}
