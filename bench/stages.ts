/**
 * Where the time of a parse goes: uploads files to a fresh service (embedded defaults) one at a time, waits for
 * each to complete, then reads the stage rows of each document's ingest job from the service's SQLite
 * database and prints, per document, the total (upload → completed) and the span of each stage (read,
 * chunk, index) relative to the document's creation.
 *
 *   node --conditions=quire-source --import tsx bench/stages.ts [--times 4] [--wait-ms 0] file.pdf [more files…]
 *
 * Files are parsed in the order given, `--times` rounds over the list. BENCH_NODE_ARGS passes flags to the
 * service's node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile its main thread); BENCH_ENV is JSON
 * added to its environment (e.g. '{"QUIRE_PDF_DEBUG":"1"}' for the PDF workers' per-phase timings).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { startService } from './service.js';

const { values: args, positionals: files } = parseArgs({ allowPositionals: true, options: { times: { type: 'string', default: '4' }, 'wait-ms': { type: 'string', default: '0' } } });
if (!files.length) {
  console.log('usage: bench/stages.ts [--times 4] [--wait-ms 0] file [file…]');
  process.exit(2);
}
const key = `svc_${randomBytes(20).toString('hex')}`;
const s = await startService(key, { prefix: 'quire-stages-', env: { QUIRE_PARSE_TIMEOUT_S: '1800', ...(process.env.BENCH_ENV ? JSON.parse(process.env.BENCH_ENV) : {}) } });
try {
  // time for the service to settle (workers started) before the first document, when asked
  await new Promise((r) => setTimeout(r, Number(args['wait-ms'])));
  const done: { id: string; file: string; uploadMs: number; totalMs: number }[] = [];
  for (let round = 0; round < Number(args.times); round++) {
    for (const file of files) {
      const t0 = performance.now();
      const form = new FormData();
      form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
      const res = await fetch(`${s.base}/v1/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const up = (await res.json()) as { id: string };
      if (!res.ok) throw new Error(`upload refused: ${res.status} ${JSON.stringify(up)}`);
      const uploadMs = performance.now() - t0;
      for (;;) {
        const d = (await (await fetch(`${s.base}/v1/documents/${up.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string };
        if (d.status === 'completed' || d.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      done.push({ id: up.id, file: path.basename(file), uploadMs, totalMs: performance.now() - t0 });
    }
  }
  const db = new Database(path.join(s.dataDir, 'quire.db'), { readonly: true });
  // TypeORM keeps SQLite datetimes as UTC 'YYYY-MM-DD HH:MM:SS.mmm'
  const ms = (v: unknown) => new Date(`${String(v).replace(' ', 'T')}Z`).getTime();
  console.log('document                        | total ms | upload ms | ' + ['read', 'chunk', 'index'].map((x) => `${x} (from..to ms)`.padEnd(18)).join(' | '));
  for (const d of done) {
    const doc = db.prepare('SELECT created_at FROM documents WHERE id = ?').get(d.id) as { created_at: string };
    const job = db.prepare('SELECT id FROM jobs WHERE document_id = ?').get(d.id) as { id: string };
    const stages = db.prepare('SELECT stage, started_at, completed_at FROM job_stages WHERE job_id = ? ORDER BY started_at').all(job.id) as { stage: string; started_at: string; completed_at: string }[];
    const c0 = ms(doc.created_at);
    const span = (name: string) => {
      const st = stages.find((x) => x.stage === `ingest.${name}`);
      return (st ? `${ms(st.started_at) - c0}..${ms(st.completed_at) - c0} (${ms(st.completed_at) - ms(st.started_at)})` : '').padEnd(18);
    };
    console.log(`${d.file.slice(0, 31).padEnd(31)} | ${d.totalMs.toFixed(0).padStart(8)} | ${d.uploadMs.toFixed(0).padStart(9)} | ${['read', 'chunk', 'index'].map(span).join(' | ')}`);
  }
  db.close();
} finally {
  await s.stop();
}
