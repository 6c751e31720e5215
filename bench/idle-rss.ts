/**
 * Resident memory of an idle service by the stages it runs: starts the service (built dist when present) with
 * each QUIRE_RUN_STAGES value, waits for /readyz (which asks every plugin's health) and a few seconds more,
 * then prints the RSS of the process and its children, and what /readyz says of the OCR plugins. A process
 * that runs no `ocr` stage should not have loaded the PP-OCR models (about 430 MB) at that point.
 *
 *   node --conditions=quire-source --import tsx bench/idle-rss.ts [--rounds 3] [--settle-ms 5000]
 */
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startService } from './service.js';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, 'settle-ms': { type: 'string', default: '5000' } } });
const rounds = Math.max(1, Number(args.rounds));
const settleMs = Number(args['settle-ms']);

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}
function treeRss(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      total += rssOf(p);
      for (const tid of fs.readdirSync(`/proc/${p}/task`)) stack.push(...fs.readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number));
    } catch {
      /* gone */
    }
  }
  return total;
}

const CASES = [
  { label: 'API only (QUIRE_RUN_STAGES=false)', stages: 'false' },
  { label: 'reader (QUIRE_RUN_STAGES=fetch,read,chunk,index)', stages: 'fetch,read,chunk,index' },
  { label: 'everything (QUIRE_RUN_STAGES=true)', stages: 'true' },
];

const mb = (b: number) => Math.round(b / 1024 / 1024);
console.log(`| process | RSS MB min / median / max (${rounds} starts) | ocr plugins (/readyz) |`);
console.log('|---|---|---|');
for (const c of CASES) {
  const seen: number[] = [];
  let ocr = '';
  for (let i = 0; i < rounds; i++) {
    const key = `svc_${randomBytes(20).toString('hex')}`;
    const s = await startService(key, { prefix: 'quire-idle-rss-', env: { QUIRE_RUN_STAGES: c.stages } });
    try {
      const ready = (await (await fetch(`${s.base}/readyz`, { headers: { authorization: `Bearer ${key}` } })).json()) as { plugins?: { plugin: string; ok: boolean; message?: string }[] };
      await new Promise((r) => setTimeout(r, settleMs));
      seen.push(treeRss(s.pid));
      ocr = (ready.plugins ?? []).filter((p) => p.plugin.startsWith('ocr:')).map((p) => `${p.plugin}: ${p.message ?? (p.ok ? 'ok' : 'down')}`).join('; ');
    } finally {
      await s.stop();
    }
  }
  seen.sort((a, b) => a - b);
  console.log(`| ${c.label} | ${mb(seen[0]!)} / ${mb(seen[Math.floor(seen.length / 2)]!)} / ${mb(seen[seen.length - 1]!)} | ${ocr.replace(/\|/g, '/')} |`);
}
