// The runner runs the pipelines the API runs: the same file with the same config gives the same chunks
// through POST /api/parse and through runParse (role runner), for generated files and a few corpus files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runParse } from '@quire/runner';
import { makeDocx, makePdf, makeXlsx } from '../helpers/fixtures.js';
import { CORPUS, hasCorpus, makeTempDir, removeTempDir, startTestServer, uploadForm } from '../helpers/server.js';

/** Corpus files of a few formats (a text PDF, a multi-column PDF, a Word file with tables, a sheet, a deck). */
const CORPUS_FILES = ['docling__word_tables.docx', 'unstructured__multi-column-2p.pdf', 'docling__xlsx_01.xlsx', 'docling__powerpoint_sample.pptx', 'docling__normal_4pages.pdf'];

async function inputFolder(dir: string): Promise<string[]> {
  fs.mkdirSync(path.join(dir, 'generated'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'generated', 'report.pdf'),
    await makePdf([
      { heading: 'Quarterly report', lines: ['Revenue grew by 12 percent over the quarter.', 'Costs fell in every region.', 'Headcount stayed flat.'] },
      { heading: 'Outlook', lines: ['The outlook for next year is stable.', 'Risks are listed in the appendix.'] },
    ]),
  );
  fs.writeFileSync(path.join(dir, 'generated', 'review.docx'), await makeDocx());
  fs.writeFileSync(path.join(dir, 'generated', 'budget.xlsx'), await makeXlsx());
  const files = ['generated/report.pdf', 'generated/review.docx', 'generated/budget.xlsx'];
  if (hasCorpus) {
    fs.mkdirSync(path.join(dir, 'corpus'));
    for (const f of CORPUS_FILES) {
      const src = path.join(CORPUS, 'files', f);
      if (!fs.existsSync(src)) continue;
      fs.copyFileSync(src, path.join(dir, 'corpus', f));
      files.push(`corpus/${f}`);
    }
  }
  return files.map((f) => f.split('/').join(path.sep));
}

test('the runner and POST /api/parse give the same chunks for the same file and config', { timeout: 280_000 }, async (t) => {
  const base = makeTempDir('parity');
  const s = await startTestServer();
  t.after(async () => {
    await s.close();
    removeTempDir(base);
  });
  const input = path.join(base, 'in');
  const files = await inputFolder(input);
  if (!hasCorpus) t.diagnostic(`no corpus at ${CORPUS}: generated files only`);

  const configs: Record<string, Record<string, unknown>> = {
    default: {},
    custom: { chunking: { strategy: 'semantic', max_chunk_size: 300, overlap: 40 }, formatting: { table_output_format: 'html' }, ocr: { enabled: false } },
  };
  for (const [name, parse] of Object.entries(configs)) {
    const out = path.join(base, `out-${name}`);
    // the server's own config (plugins, their options, limits); the runner keeps its data dir under its output folder
    const config = { ...s.runtime.config, dataDir: path.join(out, '.quire') };
    const summary = await runParse({ folder: input, out, config, parse, concurrency: 2 });
    assert.deepEqual(summary.failed, [], `${name}: ${JSON.stringify(summary.failed)}`);
    assert.deepEqual(summary.unsupported, []);
    assert.equal(summary.parsed, files.length, JSON.stringify(summary));

    for (const rel of files) {
      const what = `${rel} with the ${name} config`;
      const runner = JSON.parse(fs.readFileSync(path.join(out, `${rel}.json`), 'utf8'));
      const res = await s.json('/api/parse', { method: 'POST', body: uploadForm(path.basename(rel), fs.readFileSync(path.join(input, rel)), { config: JSON.stringify(parse) }) });
      assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
      const api = res.body.result.chunks as any[];
      const mine = runner.result.chunks as any[];
      assert.ok(api.length >= 1, `${what}: chunks`);
      assert.equal(mine.length, api.length, `${what}: as many chunks`);
      // ids are <document>:<index>: the runner names its documents by their relative path, the API by the job
      mine.forEach((c, i) => assert.equal(c.id, `${rel}:${i}`));
      api.forEach((c, i) => assert.equal(c.id, `${res.body.job_id}:${i}`));
      for (let i = 0; i < api.length; i++) {
        const { id: _a, ...a } = api[i];
        const { id: _m, ...m } = mine[i];
        assert.deepEqual(Object.keys(m), Object.keys(a), `${what}: keys of chunk ${i}`);
        assert.equal(m.content, a.content, `${what}: content of chunk ${i}`);
        assert.equal(m.page, a.page, `${what}: page of chunk ${i}`);
        assert.deepEqual(m.bbox, a.bbox, `${what}: bbox of chunk ${i}`);
        assert.deepEqual(m.span, a.span, `${what}: span of chunk ${i}`);
        assert.deepEqual(m.metadata, a.metadata, `${what}: metadata of chunk ${i}`);
      }
      assert.equal(runner.result.type, res.body.result.type);
      assert.equal(runner.usage.num_pages, res.body.usage.num_pages, `${what}: pages`);
    }
  }
  // the runner's jobs and their parsed content are not kept: only its outputs and its data dir are left
  for (const name of Object.keys(configs)) {
    const stored = path.join(base, `out-${name}`, '.quire', 'files');
    const left = fs.existsSync(stored) ? fs.readdirSync(stored, { recursive: true }).map(String).filter((f) => f.endsWith('.json')) : [];
    assert.deepEqual(left, [], 'no parsed content kept under the data dir');
  }
});
