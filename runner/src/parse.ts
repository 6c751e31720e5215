import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { JobTimeoutError, failedStage, isQuireError, jobError, silentLogger } from '@quire/core';
import type { QuireConfig } from '@quire/config';
import type { Engine, ParseSource } from '@quire/engine';
import { parseConfig } from '@quire/engine/parse-config';
import type { ParseConfig } from '@quire/engine/parse-config';

/** The engine's package, loaded when a run has a file to parse: a run with nothing to do starts no engine. */
type EnginePackage = typeof import('@quire/engine');

export interface RunOptions {
  folder: string;
  out: string;
  config: Readonly<QuireConfig>;
  parse?: unknown;
  concurrency?: number;
  /** stops the run: no further file is started, the files being parsed are cancelled, the scratch folder removed */
  signal?: AbortSignal;
  /** progress callback (done, total, current file) */
  onProgress?: (done: number, total: number, file: string, status: 'ok' | 'failed' | 'skipped') => void;
}

export interface RunSummary {
  total: number;
  parsed: number;
  skipped: number;
  unsupported: string[];
  failed: { file: string; error: string }[];
  /** entries found but not read: broken or looping symbolic links, sockets, devices, unreadable folders */
  ignored: { file: string; reason: string }[];
  pages: number;
  seconds: number;
  /** the run was stopped by its signal before every file was read (a run on the same output resumes it) */
  interrupted?: boolean;
}

export interface Listing {
  /** files to read, as paths below the folder (a symbolic link keeps its own name) */
  files: string[];
  ignored: { file: string; reason: string }[];
}

/** Whether `p` lies below the folder `dir`. */
const isInside = (p: string, dir: string) => {
  const r = path.relative(dir, p);
  return r !== '' && !r.startsWith('..') && !path.isAbsolute(r);
};

/**
 * Lists the files below `root` (names starting with a dot are left out). Symbolic links to files are
 * followed, also when they point outside the folder; links to folders are followed once each real folder:
 * a link back to a folder already read (a loop, or a second way into the same folder) is named with its
 * reason instead of being walked again, as are broken links and entries that are not files.
 */
export function listFiles(root: string, opts: { exclude?: string[] } = {}): Listing {
  const files: string[] = [];
  const ignored: Listing['ignored'] = [];
  const rel = (p: string) => path.relative(root, p) || '.';
  /** real path of every folder read → the path it was read as */
  const seen = new Map<string, string>();
  /** links to folders, followed after every plain folder is read so that real folders keep their names */
  const pending: { link: string; target: string }[] = [];
  // folders never read (the output folder when it lies inside the input folder)
  const excluded = new Set((opts.exclude ?? []).map((d) => (fs.existsSync(d) ? fs.realpathSync(d) : path.resolve(d))));
  const walk = (dir: string, real: string) => {
    seen.set(real, dir);
    if (excluded.has(real)) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      ignored.push({ file: rel(dir), reason: `folder cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        const r = path.join(real, e.name);
        const already = seen.get(r);
        if (already !== undefined) ignored.push({ file: rel(p), reason: `same folder as ${rel(already)}, already read` });
        else walk(p, r);
      } else if (e.isFile()) {
        files.push(p);
      } else if (e.isSymbolicLink()) {
        let target: string;
        let st: fs.Stats;
        try {
          target = fs.realpathSync(p);
          st = fs.statSync(target);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          let to = '';
          try {
            to = fs.readlinkSync(p);
          } catch {}
          ignored.push({ file: rel(p), reason: code === 'ELOOP' ? `symbolic link loop (-> ${to})` : code === 'ENOENT' ? `broken symbolic link (-> ${to}, which does not exist)` : `symbolic link cannot be followed (${code ?? (err as Error).message})` });
          continue;
        }
        if (st.isFile()) files.push(p);
        else if (st.isDirectory()) pending.push({ link: p, target });
        else ignored.push({ file: rel(p), reason: 'symbolic link to something that is not a file or folder' });
      } else {
        ignored.push({ file: rel(p), reason: 'not a regular file (socket, pipe or device)' });
      }
    }
  };
  walk(root, fs.realpathSync(root));
  while (pending.length) {
    const { link, target } = pending.shift()!;
    const already = seen.get(target);
    if (already === undefined) walk(link, target);
    else if (isInside(link, already)) ignored.push({ file: rel(link), reason: `symbolic link loop: points back to ${rel(already)}, which contains it` });
    else ignored.push({ file: rel(link), reason: `symbolic link to ${rel(already)}, already read` });
  }
  files.sort();
  return { files, ignored };
}

/** Writes a file atomically (temp + rename), so an interrupted run never leaves half an output. */
async function writeAtomic(file: string, data: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(tmp, data);
  await fsp.rename(tmp, file);
}

/** The stage queues of the parse pipeline, which the runner consumes in its own process. */
const PARSE_STAGES = ['parse.fetch', 'parse.read', 'parse.ocr', 'parse.chunk'];
/** The runner's jobs belong to no account (the runner role charges nothing). */
const RUNNER_OWNER = { user_id: 'runner', organization_id: null };
/**
 * Where each run notes its scratch folder (`runner-runs/<pid>.<random>`: its blobs and database), so that a run after a
 * killed one removes what it left. Several runs may share a data dir (in processes of their own or in one): each removes
 * only what runs of processes no longer alive left.
 */
const RUNS_DIR = 'runner-runs';

/**
 * The config of the runner's engine: the operator's config (plugins, their options, limits) on a machine of
 * its own. The store, the queue and the vector store are local (never a shared database or broker, whose
 * workers could not read this machine's files), stages run here with `concurrency` at once, and the blob
 * storage, which only holds each job's parsed content until its outputs are written, is a scratch folder.
 * The engine of the runner role starts only the plugins a parse uses (RUNNER_PLUGIN_KINDS).
 */
function runnerConfig(base: Readonly<QuireConfig>, concurrency: number, scratch: string): QuireConfig {
  const { selected, options } = base.plugins;
  // the run's own SQLite database: jobs and queued stages of another run (or of a server) on the data dir or
  // in QUIRE_DB_URL's database are never taken up here, and none of this run's outlive it
  const db = `sqlite://${path.join(scratch, 'runner.db').split(path.sep).map(encodeURIComponent).join('/')}`;
  return {
    ...base,
    db: { url: db },
    queue: { ...base.queue, url: undefined, runStages: true, concurrency, fairShare: 0 },
    auth: { ...base.auth, bootstrapKey: undefined },
    plugins: {
      ...base.plugins,
      selected: { ...selected, store: 'typeorm', transport: 'inprocess', 'vector-store': 'embedded' },
      // the PDF reader's worker processes start at the first PDF of the run (a folder may hold none), unless the
      // operator's options say otherwise
      options: {
        ...options,
        'store:typeorm': { ...(options['store:typeorm'] ?? {}), url: db },
        'reader:pdf': { prestart: false, ...(options['reader:pdf'] ?? {}) },
        'storage:disk': { ...(options['storage:disk'] ?? {}), root: scratch },
      },
    },
  } as QuireConfig;
}

/** Whether a process is alive (one of another user counts as alive). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the scratch folders (blobs and database) of the runs noted in the data dir whose process is gone. */
async function dropDeadRuns(dataDir: string): Promise<void> {
  const dir = path.join(dataDir, RUNS_DIR);
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(name.split('.')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue;
    const scratch = await fsp.readFile(path.join(dir, name), 'utf8').catch(() => '');
    if (scratch && path.basename(scratch).startsWith('quire-runner-')) await fsp.rm(scratch, { recursive: true, force: true });
    await fsp.rm(path.join(dir, name), { force: true });
  }
}

/** A scratch folder for the run's blobs and database, and its note (under the run's pid); those of killed runs are removed. */
async function scratchFolder(dataDir: string): Promise<{ dir: string; note: string }> {
  await dropDeadRuns(dataDir);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'quire-runner-'));
  const note = path.join(dataDir, RUNS_DIR, `${process.pid}.${randomUUID().slice(0, 8)}`);
  await fsp.mkdir(path.dirname(note), { recursive: true });
  await fsp.writeFile(note, dir);
  return { dir, note };
}

type Outcome = { kind: 'ok'; pages: number } | { kind: 'unsupported' } | { kind: 'failed'; error: string };

/**
 * Parses one file as a job of the service's `parse` pipeline (fetch → read → chunk) and writes its outputs.
 * The file is named to the fetch stage by its path (a `local` source, which only the runner role reads: the
 * file is the operator's, not an upload, so it is read where it is instead of being copied into storage);
 * its chunks are named by the relative path (`<rel>:<index>`).
 */
async function parseOne(q: EnginePackage, rt: Engine, file: string, rel: string, cfg: ParseConfig, out: { json: string; md: string }, inFlight: Set<string>): Promise<Outcome> {
  const { jobParsedKey, loadParsed, submitJob, toMarkdown } = q;
  const t0 = Date.now();
  const jobId = randomUUID();
  inFlight.add(jobId);
  try {
    const source: ParseSource = { source: 'local', path: file, name: path.basename(file), read_as: rel };
    const timeoutMs = rt.config.limits.parseTimeoutMs + 60_000;
    const { done } = await submitJob(rt, 'parse', RUNNER_OWNER, { config: cfg }, { id: jobId, payload: source, wait: { timeoutMs } });
    if (!done) throw new JobTimeoutError(jobId, 'processing', timeoutMs);
    if (done.status !== 'completed') {
      const error = jobError(done);
      // a file no reader is chosen for at the fetch stage is not a failure: it is listed as unsupported
      if (failedStage(done) === 'fetch' && isQuireError(error) && error.code === 'UNSUPPORTED_FORMAT') return { kind: 'unsupported' };
      return { kind: 'failed', error: error.message };
    }
    const output = done.result as { type: string; chunks: unknown[]; usage: { num_pages: number } };
    const doc = await loadParsed(rt, jobParsedKey(jobId));
    const result = {
      file: rel,
      format: doc.format,
      duration: (Date.now() - t0) / 1000,
      usage: { num_pages: output.usage.num_pages },
      issues: doc.issues,
      result: { type: output.type, chunks: output.chunks },
    };
    await writeAtomic(out.md, toMarkdown(doc));
    await writeAtomic(out.json, JSON.stringify(result, null, 2));
    return { kind: 'ok', pages: output.usage.num_pages };
  } finally {
    inFlight.delete(jobId);
    // the outputs are the result: the job and its parsed content are not kept
    await rt.pipelines.cancel(jobId).catch(() => {});
    await rt.storage.deletePrefix(`jobs/${jobId}/`).catch(() => {});
    await rt.store.repo('jobs').delete(jobId).catch(() => {});
  }
}

/**
 * Parses every supported file below `folder` with the service's own `parse` pipeline, on an Engine of the
 * `runner` role (the plugins, chunker and options the config selects, as the server would use them),
 * writing `<relative path>.json` (the parse result) and `<relative path>.md` under `out`. Files whose
 * outputs exist and are newer than the source are skipped, so an interrupted run resumes.
 */
export async function runParse(opts: RunOptions): Promise<RunSummary> {
  const started = Date.now();
  const cfg: ParseConfig = parseConfig(opts.parse ?? {}, 'config file');
  const concurrency = Math.max(1, opts.concurrency ?? 2);
  await fsp.mkdir(opts.out, { recursive: true });
  const { files, ignored } = listFiles(opts.folder, { exclude: [opts.out] });
  const summary: RunSummary = { total: files.length, parsed: 0, skipped: 0, unsupported: [], failed: [], ignored, pages: 0, seconds: 0 };
  const outputsOf = (file: string) => {
    const rel = path.relative(opts.folder, file);
    return { rel, json: path.join(opts.out, `${rel}.json`), md: path.join(opts.out, `${rel}.md`) };
  };
  /** whether the file's outputs exist and are newer than it (a file that cannot be read is not done) */
  const isDone = (file: string) => {
    const out = outputsOf(file);
    return fs.existsSync(out.json) && fs.existsSync(out.md) && fs.statSync(out.json).mtimeMs >= fs.statSync(file).mtimeMs;
  };
  // a run with nothing to parse (no files, or the outputs of every file newer than it) loads and starts no engine
  if (files.every((f) => { try { return isDone(f); } catch { return false; } })) {
    await dropDeadRuns(opts.config.dataDir);
    for (const [i, file] of files.entries()) {
      summary.skipped++;
      opts.onProgress?.(i + 1, files.length, outputsOf(file).rel, 'skipped');
    }
    summary.seconds = (Date.now() - started) / 1000;
    return summary;
  }
  const q: EnginePackage = await import('@quire/engine');
  const { dir: scratch, note } = await scratchFolder(opts.config.dataDir);
  let rt: Engine | null = null;
  try {
    rt = await q.Engine.create(runnerConfig(opts.config, concurrency, scratch), silentLogger, 'runner');
    const engine = rt;
    // a batch run loads the OCR engine's models at its first scan, not at start (a folder of text files never needs them)
    await engine.startStages(PARSE_STAGES, { warmOcr: false });
    let done = 0;
    let next = 0;
    // a stop cancels the files being parsed (their outputs are not written: a later run parses them)
    const inFlight = new Set<string>();
    const stop = () => {
      for (const id of inFlight) void engine.pipelines.cancel(id).catch(() => {});
    };
    opts.signal?.addEventListener('abort', stop, { once: true });
    const worker = async () => {
      while (next < files.length && !opts.signal?.aborted) {
        const file = files[next++]!;
        const { rel, json, md } = outputsOf(file);
        let status: 'ok' | 'failed' | 'skipped' = 'ok';
        try {
          if (isDone(file)) {
            summary.skipped++;
            status = 'skipped';
          } else {
            const r = await parseOne(q, engine, file, rel, cfg, { json, md }, inFlight);
            if (opts.signal?.aborted && r.kind !== 'ok') break;
            if (r.kind === 'ok') {
              summary.parsed++;
              summary.pages += r.pages;
            } else if (r.kind === 'unsupported') {
              summary.unsupported.push(rel);
              status = 'skipped';
            } else {
              summary.failed.push({ file: rel, error: r.error });
              status = 'failed';
            }
          }
        } catch (e) {
          if (opts.signal?.aborted) break;
          summary.failed.push({ file: rel, error: (e as Error).message });
          status = 'failed';
        }
        done++;
        opts.onProgress?.(done, files.length, rel, status);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    opts.signal?.removeEventListener('abort', stop);
    if (opts.signal?.aborted && done < files.length) summary.interrupted = true;
    summary.seconds = (Date.now() - started) / 1000;
    return summary;
  } finally {
    await rt?.close().catch(() => {});
    await fsp.rm(scratch, { recursive: true, force: true }).catch(() => {});
    await fsp.rm(note, { force: true }).catch(() => {});
  }
}
