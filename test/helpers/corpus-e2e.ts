/**
 * The end-to-end corpus suite over HTTP for one format group (test/e2e/corpus-<group>.test.ts): upload every
 * file of the group, reach completed (PDFs with the manifest's page count), a word-level F1 of at least 0.9
 * (born-digital and office) or 0.8 (OCR) where the manifest gives reference text, and table chunks for table
 * files. Kept apart from corpus.ts, which the reader plugins' tests import without the server.
 * `leaveOut` names files of the group the suite does not upload, each with its reason (a file of the same kind
 * and format stays in the sample, and a bench or another test reads the file); a name not in the group fails.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CORPUS, hasCorpus, startTestServer, uploadForm, waitForStatus } from './server.js';
import type { TestServer } from './server.js';
import { stripMarkdown, wordF1 } from './f1.js';
import { CORPUS_GROUPS, E2E_REFERENCE_GAPS, corpusManifest, isScan } from './corpus.js';
import type { CorpusEntry } from './corpus.js';

export function corpusSuite(group: keyof typeof CORPUS_GROUPS & string, opts: { leaveOut?: Record<string, string> } = {}): void {
  const leaveOut = opts.leaveOut ?? {};
  const inGroup = CORPUS_GROUPS[group];
  if (!inGroup) throw new Error(`unknown corpus group ${group}`);
  describe(`corpus over HTTP: ${group}`, { skip: hasCorpus ? false : 'no ../shared/corpus here' }, () => {
    let s: TestServer;
    let entries: CorpusEntry[] = [];
    const ids = new Map<string, string>();
    const results = new Map<string, any>();

    before(async () => {
      const all = corpusManifest(CORPUS).filter(inGroup);
      const unknown = Object.keys(leaveOut).filter((id) => !all.some((e) => e.id === id));
      assert.deepEqual(unknown, [], `left out of ${group} but not in the group`);
      entries = all.filter((e) => !(e.id in leaveOut));
      assert.ok(entries.length > 0, `no corpus files in group ${group}`);
      for (const [id, why] of Object.entries(leaveOut)) console.log(`# corpus ${group}: ${id} left out: ${why}`);
      s = await startTestServer();
      const t0 = Date.now();
      for (const e of entries) {
        const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(e.id, fs.readFileSync(path.join(CORPUS, e.path))) });
        assert.equal(up.status, 201, `${e.id}: ${JSON.stringify(up.body)}`);
        ids.set(e.id, up.body.id);
      }
      for (const e of entries) results.set(e.id, await waitForStatus(s, `/v1/documents/${ids.get(e.id)}`, 600_000));
      console.log(`# corpus ${group}: ${entries.length} files processed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    });
    after(async () => {
      await s?.close();
    });

    test('every file reaches completed', () => {
      const failed = entries.filter((e) => results.get(e.id)?.status !== 'completed').map((e) => `${e.id}: ${results.get(e.id)?.error}`);
      assert.deepEqual(failed, []);
      for (const e of entries) if (e.pages && e.format === 'pdf') assert.equal(results.get(e.id).pages, e.pages, `${e.id} pages`);
    });

    test('text matches the reference (word F1)', async () => {
      const rows: string[] = [];
      const below: string[] = [];
      for (const e of entries) {
        const gt = e.ground_truth?.find((g) => ['markdown', 'plain_text', 'ocr_text'].includes(g.kind));
        if (!gt) continue;
        const content = await s.json(`/v1/documents/${ids.get(e.id)}/content`);
        const ref = fs.readFileSync(path.join(CORPUS, gt.path), 'utf8');
        const { f1, precision, recall } = wordF1(content.body.text ?? '', gt.kind === 'markdown' ? stripMarkdown(ref) : ref);
        const min = isScan(e) ? 0.8 : 0.9;
        const gap = E2E_REFERENCE_GAPS[e.id];
        rows.push(`${e.id.padEnd(48)} ${e.format.padEnd(5)} F1 ${f1.toFixed(3)} (P ${precision.toFixed(3)} R ${recall.toFixed(3)}) min ${min}${gap ? ' on recall (reference gap)' : ''}`);
        if ((gap ? recall : f1) < min) below.push(`${e.id}: ${(gap ? recall : f1).toFixed(3)} < ${min}`);
      }
      if (rows.length) console.log(rows.join('\n'));
      assert.deepEqual(below, []);
    });

    test('table files yield chunks of type table', async () => {
      const tableFiles = entries.filter((e) => ['csv', 'xlsx', 'xls'].includes(e.format) || /table/.test(e.category));
      const missing: string[] = [];
      for (const e of tableFiles) {
        const c = await s.json(`/v1/documents/${ids.get(e.id)}/content?response=chunks`);
        if (!c.body.chunks?.some((x: any) => x.type === 'table')) missing.push(e.id);
      }
      assert.deepEqual(missing, []);
    });
  });
}
