/**
 * Resident memory of PP-OCR in one process, per onnxruntime session configuration: each configuration runs in
 * a fresh child process that loads the models in-process (no worker thread, so the process's RSS is the
 * engine's) and reports its RSS before loading, after loading, after each of N receipts (peak and last) and
 * after the sessions are released; plus seconds per receipt (wall clock, and the CPU time of the process: user and
 * system, which a busy machine does not change) and a digest of the texts read, so that a
 * configuration that changes what is read shows.
 *
 *   QUIRE_CORPUS=/work/shared/corpus node --conditions=quire-source --import tsx plugins/ocr-ppocr/bench/memory.ts \
 *     [--limit 20] [--configs '[{"label":"x","memArena":false,"graphOptimization":"basic"}]']
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ppocr, RETRY_BELOW, RETRY_WIDTHS, bundledModels } from '@quire/plugin-ocr-ppocr';
import type { PpocrConfig } from '@quire/plugin-ocr-ppocr';
import { loadReceipts, receiptsDir } from '../../../test/helpers/receipts.js';

const args = process.argv.slice(2);
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const limit = Number(arg('limit') ?? 20);
const rssMb = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);

/** `env`: the child's environment besides the bench's (glibc's MALLOC_* tunables are read at process start) */
const DEFAULT_CONFIGS: (Partial<PpocrConfig> & { label: string; env?: Record<string, string> })[] = [
  { label: 'arena on (all, patterns on)', memArena: true },
  { label: 'arena off, patterns off (all)', memArena: false },
  { label: 'arena off, patterns off, extended', memArena: false, graphOptimization: 'extended' },
  { label: 'arena off, patterns off, basic', memArena: false, graphOptimization: 'basic' },
  { label: 'arena off, patterns off, disabled', memArena: false, graphOptimization: 'disabled' },
  { label: 'arena off, MALLOC_MMAP_THRESHOLD_=131072', memArena: false, env: { MALLOC_MMAP_THRESHOLD_: '131072' } },
  { label: 'arena off, MALLOC_ARENA_MAX=2', memArena: false, env: { MALLOC_ARENA_MAX: '2' } },
];

async function child(cfgJson: string) {
  const dir = receiptsDir();
  if (!dir) throw new Error('no receipts (set QUIRE_CORPUS)');
  const cases = loadReceipts(dir, { limit });
  const over = JSON.parse(cfgJson) as Partial<PpocrConfig>;
  const cfg: PpocrConfig = { ...bundledModels(), concurrency: 1, threads: 1, detMaxSide: 960, maxImageSide: 4096, recBatch: 6, dropScore: 0.5, memArena: false, retryBelow: RETRY_BELOW, retryWidths: RETRY_WIDTHS, ...over };
  const engine = new Ppocr(cfg);
  const start = rssMb();
  await engine.load();
  const loaded = rssMb();
  let peak = loaded;
  const hash = createHash('sha256');
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const c of cases) {
    const r = await engine.recognize(c.file, { language: 'eng' });
    hash.update(r.text);
    peak = Math.max(peak, rssMb());
  }
  const seconds = (performance.now() - t0) / 1000 / cases.length;
  const cpu = process.cpuUsage(cpu0);
  const user = cpu.user / 1e6 / cases.length;
  const system = cpu.system / 1e6 / cases.length;
  const after = rssMb();
  await engine.close();
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 500));
  const closed = rssMb();
  process.stdout.write(JSON.stringify({ start, loaded, peak, after, closed, seconds, user, system, digest: hash.digest('hex').slice(0, 12) }));
}

async function main() {
  const configs = arg('configs') ? (JSON.parse(arg('configs')!) as typeof DEFAULT_CONFIGS) : DEFAULT_CONFIGS;
  console.log(`PP-OCR in one process, ${limit} receipts each; RSS in MB\n`);
  console.log('| configuration | start | models loaded | peak | after N | released | s/receipt (wall) | CPU s/receipt: user + system | texts |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const { label, env, ...cfg } of configs) {
    const out = execFileSync(process.execPath, [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), '--child', JSON.stringify(cfg), '--limit', String(limit)], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 20 });
    const r = JSON.parse(out.trim().split('\n').pop()!);
    console.log(`| ${label} | ${r.start} | ${r.loaded} | ${r.peak} | ${r.after} | ${r.closed} | ${r.seconds.toFixed(2)} | ${r.user.toFixed(2)} + ${r.system.toFixed(2)} | ${r.digest} |`);
  }
}

if (arg('child')) await child(arg('child')!);
else await main();
