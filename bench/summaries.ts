/**
 * Summary lengths over the corpus (QUIRE_CORPUS): every document of the manifest (or --formats pdf,docx,…)
 * is uploaded, and summarised (offline, extractive) short, medium and long as markdown. Prints per document
 * the characters of each summary's sentences and of its file, whether short < long, whether the title
 * holds the file name, and the spread (min / median / max) of short÷long.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx bench/summaries.ts [--formats pdf,docx] [--max 60]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startService } from './service.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const ROOT = process.env.QUIRE_CORPUS;
if (!ROOT || !fs.existsSync(path.join(ROOT, 'manifest.json'))) {
  console.error('set QUIRE_CORPUS to the corpus folder (manifest.json)');
  process.exit(2);
}
const FORMATS = new Set(arg('formats', 'pdf,docx,doc,rtf,txt,html,pptx,ppt').split(','));
const MAX = Number(arg('max', '60'));
const KEY = `svc_${randomBytes(20).toString('hex')}`;
const LENGTHS = ['short', 'medium', 'long'] as const;

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'manifest.json'), 'utf8')) as { files: { id: string; path: string; format: string }[] };
const files = manifest.files.filter((f) => FORMATS.has(f.format)).slice(0, MAX);
const svc = await startService(KEY, { prefix: 'quire-bench-summaries-' });
const api = async (p: string, init: RequestInit & { json?: unknown } = {}) => {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${svc.base}${p}`, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};
const wait = async (fn: () => Promise<any>, ms: number) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 250));
  }
};

const rows: { name: string; sentences: Record<string, number>; chars: Record<string, number>; file: Record<string, number>; title: string; shorter: boolean | null }[] = [];
try {
  for (const f of files) {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(path.join(ROOT, f.path))]), f.id);
    const up = await api('/v1/documents', { method: 'POST', body: form });
    if (up.status >= 300) continue;
    const doc = await wait(async () => {
      const d = (await api(`/v1/documents/${up.body.id}`)).body;
      return d.status === 'completed' || d.status === 'failed' ? d : null;
    }, 300_000);
    if (doc?.status !== 'completed') continue;
    const row = { name: f.id, sentences: {} as Record<string, number>, chars: {} as Record<string, number>, file: {} as Record<string, number>, title: '', shorter: null as boolean | null };
    for (const length of LENGTHS) {
      const r = await api('/api/generate/summaries', { method: 'POST', json: { source_document_ids: [up.body.id], config: { outputFormat: 'markdown', length } } });
      const done = await wait(async () => {
        const j = (await api(`/api/generate/jobs/${r.body.job_id}`)).body;
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      }, 120_000);
      if (done?.status !== 'completed') continue;
      const sentences = (done.result.sentences ?? []) as { text: string }[];
      row.sentences[length] = sentences.length;
      row.chars[length] = sentences.reduce((a, x) => a + x.text.length + 1, 0);
      row.file[length] = done.result.file_size;
      row.title = done.result.title;
    }
    // short < long is possible only when the source has more than one sentence to choose from
    row.shorter = (row.sentences.long ?? 0) > 1 ? (row.chars.short ?? 0) < (row.chars.long ?? 0) : null;
    rows.push(row);
    console.error(`${f.id}: ${LENGTHS.map((l) => `${l} ${row.chars[l] ?? '-'}`).join(', ')}`);
  }
} finally {
  await svc.stop();
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(`${'document'.padEnd(48)} ${pad('sent s/m/l', 12)} ${pad('chars short', 11)} ${pad('medium', 7)} ${pad('long', 7)} ${pad('file s', 7)} ${pad('file l', 7)} short<long  title has file name`);
for (const r of rows) {
  const stem = r.name.replace(/\.[a-z0-9]+$/i, '');
  console.log(`${r.name.slice(0, 48).padEnd(48)} ${pad(LENGTHS.map((l) => r.sentences[l] ?? '-').join('/'), 12)} ${pad(r.chars.short ?? '-', 11)} ${pad(r.chars.medium ?? '-', 7)} ${pad(r.chars.long ?? '-', 7)} ${pad(r.file.short ?? '-', 7)} ${pad(r.file.long ?? '-', 7)} ${pad(r.shorter === null ? 'n/a' : r.shorter ? 'yes' : 'NO', 10)}  ${r.title.includes(stem) ? 'YES' : 'no'}`);
}
const ratios = rows.filter((r) => r.shorter !== null && r.chars.long).map((r) => r.chars.short! / r.chars.long!).sort((a, b) => a - b);
const q = (p: number) => (ratios.length ? ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))]!.toFixed(2) : '-');
console.log(`\n${rows.length} documents summarised; short < long on ${rows.filter((r) => r.shorter).length} of ${rows.filter((r) => r.shorter !== null).length} that have more than one sentence; short÷long characters min ${q(0)} median ${q(0.5)} max ${q(1)}; titles holding the file name: ${rows.filter((r) => r.title.includes(r.name.replace(/\.[a-z0-9]+$/i, ''))).length}`);
