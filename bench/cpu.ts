/**
 * CPU time of a parse (see bench/README): uploads `file` `times` times (default 3) to a fresh service, one at a
 * time, and prints per document the CPU time of the service's main thread, of its whole process and of its
 * child processes (Linux /proc), the wall time, and hashes of the chunks, vectors and stored parsed JSON.
 *
 *   node --conditions=quire-source --import tsx bench/cpu.ts file.pdf [times]
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { startService } from './service.js';
const [file, timesArg] = process.argv.slice(2);
const times = Number(timesArg ?? 3);
if (!file) {
  console.log('usage: bench/cpu.ts file [times]');
  process.exit(2);
}
const key = `svc_${randomBytes(20).toString('hex')}`;
/** clock ticks a second of /proc/<pid>/stat (USER_HZ, 100 on Linux) */
const HZ = 100;
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try { for (const t of fs.readdirSync(`/proc/${out[i]}/task`)) { const k = fs.readFileSync(`/proc/${out[i]}/task/${t}/children`, 'utf8').trim(); if (k) out.push(...k.split(/\s+/).map(Number)); } } catch {}
  }
  return out;
}
function cpuT(pid: number, tid: number): number { try { const f = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' '); return ((Number(f[11]) + Number(f[12])) / HZ) * 1000; } catch { return 0; } }
function cpu(pid: number): number { try { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return ((Number(f[11]) + Number(f[12])) / HZ) * 1000; } catch { return 0; } }
const s = await startService(key, { prefix: 'quire-cpu-', env: { QUIRE_PARSE_TIMEOUT_S: '1800', ...(process.env.BENCH_ENV ? JSON.parse(process.env.BENCH_ENV) : {}) } });
try {
  for (let r = 0; r < times; r++) {
    const pids = tree(s.pid);
    const before = new Map(pids.map((p) => [p, cpu(p)]));
    const mainThread0 = cpuT(s.pid, s.pid);
    const t0 = performance.now();
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(file!)]), path.basename(file!));
    const res = await fetch(`${s.base}/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const up = (await res.json()) as { id: string };
    if (!res.ok) throw new Error(`refused ${res.status} ${JSON.stringify(up)}`);
    let d: any;
    for (;;) {
      d = await (await fetch(`${s.base}/v1/documents/${up.id}`, { headers: { authorization: `Bearer ${key}` } })).json();
      if (d.status === 'completed' || d.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const wall = performance.now() - t0;
    const after = tree(s.pid);
    const main = cpu(s.pid) - (before.get(s.pid) ?? 0);
    const mainThread = cpuT(s.pid, s.pid) - mainThread0;
    let kids = 0;
    for (const p of after) if (p !== s.pid) kids += cpu(p) - (before.get(p) ?? 0);
    console.log(`run ${r + 1}: ${d.status} pages ${d.pages} wall ${wall.toFixed(0)} ms; main process CPU ${main.toFixed(0)} ms (main thread ${mainThread.toFixed(0)}); children CPU ${kids.toFixed(0)} ms (${after.length - 1} children)`);
  }
  // identity: chunks (all but ids) and vectors (by chunk index) of every document, and the stored parsed JSON (document ids blanked)
  const db = new Database(path.join(s.dataDir, 'quire.db'), { readonly: true });
  const vdb = new Database(path.join(s.dataDir, 'vectors/vectors.db'), { readonly: true });
  for (const d of db.prepare('SELECT id, content_key FROM documents ORDER BY created_at').all() as { id: string; content_key: string }[]) {
    const ch = db.prepare('SELECT id, idx, page, content, type, confidence, bbox, span_start, span_end, metadata FROM chunks WHERE document_id = ? ORDER BY idx').all(d.id) as any[];
    const hc = createHash('sha256'), hv = createHash('sha256');
    for (const c of ch) {
      hc.update(JSON.stringify([c.idx, c.page, c.content, c.type, c.confidence, c.bbox, c.span_start, c.span_end, c.metadata]));
      const v = vdb.prepare('SELECT vector, text, page, metadata, terms FROM vectors WHERE id = ?').get(c.id) as any;
      hv.update(v ? Buffer.concat([v.vector, Buffer.from(v.text + '|' + v.page + '|' + v.metadata), v.terms]) : Buffer.from('missing'));
    }
    const nv = (vdb.prepare('SELECT count(*) n FROM vectors WHERE document_id = ?').get(d.id) as any).n;
    let hj = '';
    try { hj = createHash('sha256').update(fs.readFileSync(path.join(s.dataDir, 'files', d.content_key), 'utf8').split(d.id).join('<doc>')).digest('hex').slice(0, 12); } catch (e) { hj = 'no json ' + (e as Error).message.slice(0, 60); }
    console.log(`identity: chunks ${ch.length} ${hc.digest('hex').slice(0, 12)}; vectors ${nv} ${hv.digest('hex').slice(0, 12)}; parsed JSON ${hj}`);
  }
} finally { await s.stop(); }
