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
  pages: number;
  seconds: number;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
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
  const registry = new PluginRegistry({ config: opts.config, dataDir: opts.config.dataDir, logger: silentLogger, selected: { chunker: 'default', ocr: 'tesseract' } });
  const readers = BUILTIN_PLUGINS.filter((p) => /reader|ocr|chunker/.test(p));
  for (const name of readers) await registry.load(name, import.meta.dirname);
  for (const spec of opts.config.plugins.extra) await registry.load(spec, process.cwd());
  await registry.start();
  const rt = { registry, config: opts.config };
  const files = listFiles(opts.folder);
  const summary: RunSummary = { total: files.length, parsed: 0, skipped: 0, unsupported: [], failed: [], pages: 0, seconds: 0 };
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
