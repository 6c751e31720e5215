import assert from 'node:assert/strict';
import type { HttpTestServer } from './server.js';

export const PASSWORD = 'Harbour-Light7';

/** A user made through the API: signed up (session cookie), with a full API key made with that session. */
export interface TestUser {
  id: string;
  email: string;
  key: string;
  /** Cookie header of the browser session */
  cookie: string;
  csrf: string;
}

function cookiesOf(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of res.headers.getSetCookie()) {
    const pair = c.split(';')[0]!.trim();
    out.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  }
  return out;
}

/** Signs a user up (POST /api/auth/signup), signs in (POST /api/auth/login) and makes them an API key (POST /api/keys with the session). */
export async function signUpUser(s: Pick<HttpTestServer, 'url'>, email: string, name?: string): Promise<TestUser> {
  const up = await fetch(`${s.url}/api/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD, ...(name ? { name } : {}) }) });
  assert.equal(up.status, 202, await up.text());
  const login = await fetch(`${s.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  const body = (await login.json()) as any;
  assert.equal(login.status, 200, JSON.stringify(body));
  const jar = cookiesOf(login);
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const csrf = body.csrf_token as string;
  const k = await fetch(`${s.url}/api/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf }, body: JSON.stringify({ name: 'tests' }) });
  const kb = (await k.json()) as any;
  assert.equal(k.status, 201, JSON.stringify(kb));
  return { id: body.user.id, email: body.user.email, key: kb.key, cookie, csrf };
}

/** A request with the user's session cookie (and the CSRF header on writes). */
export async function withSession(s: Pick<HttpTestServer, 'url'>, u: TestUser, pathname: string, init: { method?: string; json?: unknown } = {}) {
  const headers: Record<string, string> = { cookie: u.cookie };
  if (init.method && init.method !== 'GET') headers['x-csrf-token'] = u.csrf;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(s.url + pathname, { method: init.method ?? 'GET', headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

/** POST `pathname` with an API key (and a JSON body when given): status and parsed body. */
async function postWithKey(s: Pick<HttpTestServer, 'url'>, key: string, pathname: string, json?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(s.url + pathname, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? JSON.stringify(json) : undefined });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * Signs `email` up and makes them an organization (POST /api/organizations: they own it) with a knowledge
 * base in it (POST /api/knowledge-bases): the owner, the organization's id and the knowledge base's.
 */
export async function organizationWithKnowledgeBase(s: Pick<HttpTestServer, 'url'>, email: string, org: { name: string; slug: string }, kbName: string): Promise<{ owner: TestUser; orgId: string; kbId: string }> {
  const owner = await signUpUser(s, email, `${org.name} Owner`);
  const made = await postWithKey(s, owner.key, '/api/organizations', org);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const orgId = made.body.organization.id as string;
  const kb = await postWithKey(s, owner.key, '/api/knowledge-bases', { name: kbName, organization_id: orgId });
  assert.equal(kb.status, 201, JSON.stringify(kb.body));
  return { owner, orgId, kbId: kb.body.knowledge_base.id as string };
}

/**
 * Makes `u` a member of the organization as adding a member works: `by` (an owner or admin) invites them
 * (POST /api/organizations/<id>/members) and `u` accepts with their own key. Returns the member.
 */
export async function addAndAccept(s: Pick<HttpTestServer, 'url'>, by: TestUser, orgId: string, u: TestUser, role: string, via: 'user_id' | 'email' = 'user_id') {
  const call = (key: string, pathname: string, json?: unknown) => postWithKey(s, key, pathname, json);
  const inv = await call(by.key, `/api/organizations/${orgId}/members`, { ...(via === 'email' ? { email: u.email } : { user_id: u.id }), role });
  assert.equal(inv.status, 201, JSON.stringify(inv.body));
  assert.equal(inv.body.invitation.status, 'pending');
  const ok = await call(u.key, `/api/user/invitations/${inv.body.invitation.id}/accept`);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  return ok.body.member;
}
