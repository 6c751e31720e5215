import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { PluginRegistry, detectFormat, silentLogger } from '@quire/core';
import type { QuireConfig } from '@quire/config';
import { BUILTIN_PLUGINS, apiChunk, chunkParsed, parseConfig, readFile, toMarkdown } from '@quire/server';
import type { ParseConfig } from '@quire/server';

export interface RunOptions {
  folder: string;
  out: string;
  config: Readonly<QuireConfig>;
  parse?: unknown;
  concurrency?: number;
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

/**
 * Parses every supported file below `folder` with the same reader and chunker plugins the service uses,
 * writing `<relative path>.json` (the parse result) and `<relative path>.md` under `out`. Files whose
 * outputs exist and are newer than the source are skipped, so an interrupted run resumes.
 */
export async function runParse(opts: RunOptions): Promise<RunSummary> {
  const started = Date.now();
  const cfg: ParseConfig = parseConfig(opts.parse ?? {}, 'config file');
  // the readers, OCR and chunker the service would use for the same config: same selection, same plugin options
  const { selected, options } = opts.config.plugins;
  const registry = new PluginRegistry({ config: opts.config, dataDir: opts.config.dataDir, logger: silentLogger, selected: { chunker: selected.chunker, ocr: selected.ocr }, options });
  const readers = BUILTIN_PLUGINS.filter((p) => /reader|ocr|chunker/.test(p));
  for (const name of readers) await registry.load(name, import.meta.dirname);
  for (const spec of opts.config.plugins.extra) await registry.load(spec, process.cwd());
  await registry.start();
  const rt = { registry, config: opts.config };
  await fsp.mkdir(opts.out, { recursive: true });
  const { files, ignored } = listFiles(opts.folder, { exclude: [opts.out] });
  const summary: RunSummary = { total: files.length, parsed: 0, skipped: 0, unsupported: [], failed: [], ignored, pages: 0, seconds: 0 };
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      const rel = path.relative(opts.folder, file);
      const jsonOut = path.join(opts.out, `${rel}.json`);
      const mdOut = path.join(opts.out, `${rel}.md`);
      let status: 'ok' | 'failed' | 'skipped' = 'ok';
      try {
        const srcTime = fs.statSync(file).mtimeMs;
        if (fs.existsSync(jsonOut) && fs.existsSync(mdOut) && fs.statSync(jsonOut).mtimeMs >= srcTime) {
          summary.skipped++;
          status = 'skipped';
        } else {
          const detected = await detectFormat(file, path.basename(file));
          if (!detected) {
            summary.unsupported.push(rel);
            status = 'skipped';
          } else {
            const t0 = Date.now();
            const doc = await readFile(rt, { path: file, name: path.basename(file), format: detected.format, size: fs.statSync(file).size, id: rel }, cfg);
            const chunks = chunkParsed(rt, doc, cfg);
            const result = {
              file: rel,
              format: detected.format,
              duration: (Date.now() - t0) / 1000,
              usage: { num_pages: doc.pages.length },
              issues: doc.issues,
              result: { type: 'full', chunks: chunks.map(apiChunk) },
            };
            await writeAtomic(mdOut, toMarkdown(doc));
            await writeAtomic(jsonOut, JSON.stringify(result, null, 2));
            summary.parsed++;
            summary.pages += doc.pages.length;
          }
        }
      } catch (e) {
        summary.failed.push({ file: rel, error: (e as Error).message });
        status = 'failed';
      }
      done++;
      opts.onProgress?.(done, files.length, rel, status);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, worker));
  } finally {
    await registry.close();
  }
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}
