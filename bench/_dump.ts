import fs from 'node:fs';
import path from 'node:path';
import { startService } from '/work/wt/edit/bench/service.js';
const CORPUS = '/work/shared/corpus';
const KEY = 'svc_ed170000000000000000000000000000000001';
const svc = await startService(KEY, { prefix: 'quire-bench-edit-' });
const call = async (p: string, init: any = {}) => {
  const r = await fetch(`${svc.base}${p}`, { ...init, headers: { authorization: `Bearer ${KEY}`, ...(init.body && !(init.body instanceof FormData) ? { 'content-type': 'application/json' } : {}) } });
  return { status: r.status, body: await r.json() as any };
};
try {
for (const f of process.argv.slice(2)) {
  const form = new FormData(); form.append('file', new Blob([fs.readFileSync(path.join(CORPUS, 'files', f))]), f);
  const up = await call('/v1/documents', { method: 'POST', body: form });
  for (;;) { const d = await call(`/v1/documents/${up.body.id}`); if (d.body.status === 'completed' || d.body.status==='failed') break; await new Promise((r) => setTimeout(r, 300)); }
  const det = await call('/api/edit/detect', { method: 'POST', body: JSON.stringify({ document_id: up.body.id }) });
  console.log('===', f);
  for (const e of det.body.elements.filter((e: any) => e.page <= 1)) console.log(JSON.stringify({ id: e.id, t: e.type, label: e.label, ml: e.max_length, comb: e.comb, fmt: e.format, opt: e.options, b: [e.bbox.x, e.bbox.y, e.bbox.width].map(Math.round) }));
}
} finally { await svc.stop(); }
