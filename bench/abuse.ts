/**
 * Replays, against a running service, the ten attacks of the security review of organizations, workflows
 * and credits, and prints for each what the service did, whether that holds, the worst /healthz latency
 * seen while it ran (target: under 1 s) and, for the credit attack, the final balance (never below zero).
 *
 *   node --conditions=quire-source --import tsx bench/abuse.ts [--json out.json]
 *
 * The service is started by bench/service.ts (built dist when present) with a throw-away data dir; users are
 * made with `quire keys create` against that data dir (premium, so that the plan's rate limit does not cut a
 * scenario short; the credit attack uses a free user with a 23.5-credit allocation). /healthz is polled
 * every 50 ms in the background during each scenario.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startService } from './service.js';

const { values: args } = parseArgs({ options: { json: { type: 'string' } } });
const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

interface Row {
  scenario: string;
  outcome: string;
  holds: boolean;
  worst_healthz_ms: number;
  balance?: number;
}

const BOOT = `svc_${randomBytes(24).toString('hex')}`;
const svc = await startService(BOOT, { prefix: 'quire-abuse-', env: { QUIRE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_CREDITS_FREE: '23.5', QUIRE_LOG_LEVEL: 'error' } });
const rows: Row[] = [];

// ---------------------------------------------------------------- helpers

type Answer = { status: number; body: any };
async function api(key: string | null, pathname: string, init: { method?: string; json?: unknown; form?: FormData } = {}): Promise<Answer> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(pathname.startsWith('http') ? pathname : svc.base + pathname, { method: init.method ?? (init.json || init.form ? 'POST' : 'GET'), headers, body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)) });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

let n = 0;
/** A user with an API key, made by the CLI against the service's data dir. */
async function user(prefix: string, plan = 'premium'): Promise<{ key: string; email: string; id: string }> {
  const email = `${prefix}${++n}@abuse.example`;
  const bin = fs.existsSync(path.join(root, 'server/dist/bin.js')) ? [path.join(root, 'server/dist/bin.js')] : ['--conditions=quire-source', '--import', 'tsx', path.join(root, 'server/src/bin.ts')];
  const { stdout } = await run(process.execPath, [...bin, 'keys', 'create', '--name', prefix, '--email', email, '--plan', plan], { cwd: root, env: { ...process.env, QUIRE_DATA_DIR: svc.dataDir, QUIRE_LOG_LEVEL: 'silent' } });
  const key = stdout.trim().split('\n').pop()!;
  const profile = await api(key, '/api/user/profile');
  return { key, email, id: profile.body.user?.id ?? profile.body.id };
}

async function pdf(text: string, pages = 1): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([595, 842]).drawText(`${text} (page ${i + 1})`, { x: 50, y: 780, size: 12, font });
  return doc.save();
}

async function upload(key: string, name: string, bytes: Uint8Array, fields: Record<string, string> = {}): Promise<string> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([Buffer.from(bytes)], { type: 'application/pdf' }), name);
  // /api/upload takes organization_id; /v1/documents uploads are personal
  const r = await api(key, '/api/upload', { form });
  if (r.status !== 200 && r.status !== 201) throw new Error(`upload: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.document.id;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const processed = (key: string, id: string) => until(`document ${id}`, async () => ['completed', 'failed'].includes((await api(key, `/v1/documents/${id}`)).body.status));

async function org(owner: string, members: [{ key: string; email: string }, string][] = []): Promise<string> {
  const o = await api(owner, '/api/organizations', { json: { name: 'Abuse', slug: `abuse-${randomBytes(4).toString('hex')}` } });
  for (const [m, role] of members) {
    const inv = await api(owner, `/api/organizations/${o.body.organization.id}/members`, { json: { email: m.email, role } });
    await api(m.key, `/api/user/invitations/${inv.body.invitation.id}/accept`, { method: 'POST' });
  }
  return o.body.organization.id;
}

const executions = async (key: string, wf: string) => (await api(key, `/api/workflows/${wf}/executions?limit=100`)).body.executions ?? [];
const finished = (key: string, wf: string, id: string) =>
  until(`execution ${id}`, async () => {
    const x = (await api(key, `/api/workflows/${wf}/executions?execution_id=${id}`)).body.executions?.[0];
    return x && x.status !== 'running' ? x : null;
  });

/** Runs a scenario while /healthz is polled every 50 ms; records its worst answer time. */
async function scenario(name: string, fn: () => Promise<{ outcome: string; holds: boolean; balance?: number }>): Promise<void> {
  let worst = 0;
  let on = true;
  const poll = (async () => {
    while (on) {
      const t0 = performance.now();
      await fetch(`${svc.base}/healthz`).then((r) => r.text()).catch(() => '');
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  let row: Row;
  try {
    const r = await fn();
    row = { scenario: name, ...r, worst_healthz_ms: 0 };
  } catch (e) {
    row = { scenario: name, outcome: `error: ${(e as Error).message.slice(0, 120)}`, holds: false, worst_healthz_ms: 0 };
  }
  on = false;
  await poll;
  row.worst_healthz_ms = Math.round(worst);
  rows.push(row);
  console.error(`${row.holds ? 'holds ' : 'FAILS '} ${name}: ${row.outcome} (worst /healthz ${row.worst_healthz_ms} ms)`);
}

// a local receiver for integration steps
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('ok'));
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

try {
  // 1. a template nesting {{#each}} three deep over 400 items, fired unauthenticated through the webhook URL;
  //    and a catastrophic regex in a transform step
  await scenario('1a nested {{#each}} via webhook URL', async () => {
    const a = await user('stall');
    const hook = await api(a.key, '/api/workflows/integrations', { json: { name: 'rx', integration_type: 'webhook', config: { url: receiverUrl } } });
    const template = '{{#each items}}{{#each ../items}}{{#each ../../items}}{{this}}{{/each}}{{/each}}{{/each}}';
    const wf = await api(a.key, '/api/workflows', { json: { name: 'stall', trigger_type: 'webhook', definition: { steps: [{ id: 'send', type: 'integration', config: { integration_id: hook.body.integration.id, template } }] } } });
    const fired = await api(null, wf.body.workflow.trigger_config.webhook_url, { json: { items: Array.from({ length: 400 }, (_, i) => i) } });
    const x = await finished(a.key, wf.body.workflow.id, fired.body.execution_id);
    return { outcome: `execution ${x.status}: ${String(x.error ?? '').slice(0, 60)}`, holds: x.status === 'failed' };
  });
  await scenario('1b catastrophic regex in a transform', async () => {
    const a = await user('regex');
    const wf = await api(a.key, '/api/workflows', { json: { name: 'regex', definition: { steps: [{ id: 't', type: 'transform', config: { expression: '$contains("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)' } }] } } });
    const t0 = Date.now();
    const ex = await api(a.key, `/api/workflows/${wf.body.workflow.id}/execute`, { json: { trigger_data: {} } });
    const x = await finished(a.key, wf.body.workflow.id, ex.body.execution_id);
    return { outcome: `execution ${x.status} in ${Date.now() - t0} ms`, holds: Date.now() - t0 < 10_000 };
  });

  // 2. an org admin points the creator's org workflow at the creator's personal document
  await scenario('2 admin edits an org workflow to read a personal document', async () => {
    const [ann, adm] = [await user('ann'), await user('adm')];
    const o = await org(ann.key, [[adm, 'admin']]);
    const personal = await upload(ann.key, 'private.pdf', await pdf('Private salary ledger'));
    await processed(ann.key, personal);
    const wf = await api(ann.key, '/api/workflows', { json: { name: 'org', organization_id: o, definition: { steps: [{ id: 'p', type: 'transform', config: { expression: '1' } }] } } });
    const edit = await api(adm.key, `/api/workflows/${wf.body.workflow.id}`, { method: 'PUT', json: { definition: { steps: [{ id: 'p', type: 'parse', config: { document_id: personal } }] } } });
    return { outcome: `edit answered ${edit.status}`, holds: edit.status === 400 || edit.status === 404 };
  });

  // 3. an org workflow on document.uploaded, its creator uploads a personal document
  await scenario('3 org event workflow vs a personal upload', async () => {
    const ann = await user('evt');
    const o = await org(ann.key);
    const wf = await api(ann.key, '/api/workflows', { json: { name: 'on upload', organization_id: o, trigger_type: 'event', trigger_config: { event: 'document.uploaded' }, definition: { steps: [{ id: 'p', type: 'parse', config: {} }] } } });
    const doc = await upload(ann.key, 'mine.pdf', await pdf('Personal letter'));
    await processed(ann.key, doc);
    await new Promise((r) => setTimeout(r, 2000));
    const xs = await executions(ann.key, wf.body.workflow.id);
    return { outcome: `${xs.length} executions of the org workflow`, holds: xs.length === 0 };
  });

  // 4. adding a member without consent
  await scenario('4 adding a member without consent', async () => {
    const [own, vic] = [await user('own'), await user('vic')];
    const o = await api(own.key, '/api/organizations', { json: { name: 'Trap', slug: `trap-${randomBytes(4).toString('hex')}` } });
    const add = await api(own.key, `/api/organizations/${o.body.organization.id}/members`, { json: { email: vic.email, role: 'member' } });
    const unknown = await api(own.key, `/api/organizations/${o.body.organization.id}/members`, { json: { email: `nobody-${n}@abuse.example`, role: 'member' } });
    const seen = await api(vic.key, `/api/organizations/${o.body.organization.id}`);
    return { outcome: `add ${add.status} (${add.body.invitation?.status ?? 'member'}), unknown email ${unknown.status}, invitee sees the org: ${seen.status}`, holds: add.body.invitation?.status === 'pending' && seen.status === 404 && unknown.status === add.status };
  });

  // 5. a member's personal edit batch defaults into the organization
  await scenario('5 personal work defaults into the organization', async () => {
    const [own, mem] = [await user('own5'), await user('mem5')];
    await org(own.key, [[mem, 'member']]);
    const doc = await upload(mem.key, 'form.pdf', await pdf('Personal form'));
    await processed(mem.key, doc);
    const batch = await api(mem.key, '/api/edit/batch', { json: { document_ids: [doc], run_immediately: false } });
    const seen = await api(own.key, `/api/edit/batch/${batch.body.batch?.id}`);
    return { outcome: `batch ${batch.status}, org owner reads it: ${seen.status}`, holds: batch.status === 201 && seen.status === 404 };
  });

  // 6. a removed member's key
  await scenario('6 removed member keeps access', async () => {
    const [own, mem] = [await user('own6'), await user('mem6')];
    const o = await org(own.key, [[mem, 'member']]);
    const doc = await upload(mem.key, 'team.pdf', await pdf('Team plan'), { organization_id: o });
    await processed(mem.key, doc);
    await api(own.key, `/api/organizations/${o}/members/${mem.id}`, { method: 'DELETE' });
    const before = await api(own.key, `/v1/documents/${doc}`);
    const read = await api(mem.key, `/v1/documents/${doc}`);
    return { outcome: `org owner reads it: ${before.status}; the removed member: ${read.status}`, holds: before.status === 200 && read.status === 404 };
  });

  // 7. 40 parallel async generations with 22 credits left
  await scenario('7 parallel generations past the balance', async () => {
    const u = await user('pay', 'free');
    const doc = await upload(u.key, 'invoice.pdf', await pdf('Invoice 42, total 10.00 EUR'));
    await processed(u.key, doc);
    const answers = await Promise.all(Array.from({ length: 40 }, () => api(u.key, '/api/generate/run', { json: { template_prompt: 'A summary', output_format: 'markdown', source_document_ids: [doc], async: true } })));
    const accepted = answers.filter((a) => a.status === 202).length;
    const c = await until('the generations to settle', async () => {
      const b = (await api(u.key, '/api/user/credits')).body;
      return b.credits_held === 0 ? b : null;
    }, 300_000);
    return { outcome: `${accepted} of 40 accepted, ${answers.filter((a) => a.status === 402).length} refused (402)`, holds: c.credits_remaining >= 0, balance: c.credits_remaining };
  });

  // 8. eight workflows chained on workflow.completed
  await scenario('8 workflow fan-out', async () => {
    const u = await user('fan');
    const wfs: string[] = [];
    for (let i = 0; i < 8; i++) wfs.push((await api(u.key, '/api/workflows', { json: { name: `chain ${i}`, trigger_type: 'event', trigger_config: { event: 'workflow.completed' }, definition: { steps: [{ id: 'n', type: 'transform', config: { expression: `${i}` } }] } } })).body.workflow.id);
    await api(u.key, `/api/workflows/${wfs[0]}/execute`, { json: { trigger_data: {} } });
    let last = -1;
    let count = 0;
    // settles when no new execution has appeared for 3 s
    for (let quiet = 0; quiet < 12; ) {
      await new Promise((r) => setTimeout(r, 250));
      count = (await Promise.all(wfs.map((w) => executions(u.key, w)))).flat().length;
      quiet = count === last ? quiet + 1 : 0;
      last = count;
      if (count > 200) break;
    }
    return { outcome: `${count} executions from one run`, holds: count <= 50 };
  });

  // 9. 1,000 overlapping manual split sections
  await scenario('9 split with 1,000 overlapping sections', async () => {
    const u = await user('split');
    const doc = await upload(u.key, 'five.pdf', await pdf('Chapter', 5));
    await processed(u.key, doc);
    const sections = Array.from({ length: 1000 }, (_, i) => ({ name: `s${i}`, page_start: 1, page_end: 5 }));
    const r = await api(u.key, '/api/split/run', { json: { document_id: doc, sections } });
    return { outcome: `answered ${r.status} ${r.body?.error?.code ?? ''}`, holds: r.status === 400 };
  });

  // 10. two owners leaving at once, 20 times
  await scenario('10 last-owner race (20 organizations)', async () => {
    const [a, b] = [await user('race'), await user('race')];
    let ownerless = 0;
    for (let i = 0; i < 20; i++) {
      const o = await org(a.key, [[b, 'member']]);
      await api(a.key, `/api/organizations/${o}/members/${b.id}`, { method: 'PATCH', json: { role: 'owner' } });
      await Promise.all([api(a.key, `/api/organizations/${o}/leave`, { method: 'POST' }), api(b.key, `/api/organizations/${o}/leave`, { method: 'POST' })]);
      const members = [...((await api(a.key, `/api/organizations/${o}/members`)).body.members ?? []), ...((await api(b.key, `/api/organizations/${o}/members`)).body.members ?? [])];
      if (!members.some((m: any) => m.role === 'owner')) ownerless++;
    }
    return { outcome: `${ownerless} of 20 organizations left without an owner`, holds: ownerless === 0 };
  });
} finally {
  receiver.close();
  await svc.stop();
}

console.log('\n| scenario | what the service did | holds | worst /healthz (ms) | final balance |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.scenario} | ${r.outcome} | ${r.holds ? 'yes' : '**no**'} | ${r.worst_healthz_ms} | ${r.balance ?? ''} |`);
const worst = Math.max(...rows.map((r) => r.worst_healthz_ms));
console.log(`\n${rows.filter((r) => r.holds).length} of ${rows.length} hold; worst /healthz ${worst} ms (target < 1000)`);
if (args.json) fs.writeFileSync(args.json, JSON.stringify(rows, null, 2));
