import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CORPUS, hasCorpus, startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { stripMarkdown, wordF1 } from '../helpers/f1.js';

interface Entry {
  id: string;
  path: string;
  format: string;
  category: string;
  pages?: number;
  ground_truth?: { path: string; kind: string }[];
}

const OCR_FORMATS = new Set(['png', 'jpg', 'tiff', 'gif', 'bmp']);
/**
 * References that leave out content Quire reads (checked by hand): for these, recall against the reference is
 * asserted instead of F1, since the extra words are real content of the file.
 */
const REFERENCE_GAPS: Record<string, string> = {
  'docling__pptx_chart.pptx': 'the reference omits the data table of the 3-D chart on slide 2 (Q1 10, Q2 20, Q3 30), which Quire reads from the chart XML',
  'docling__powerpoint_sample.pptx': 'the reference has no speaker notes; Quire reads them into the text (as "Notes:" captions)',
};

const isScan = (e: Entry) => OCR_FORMATS.has(e.format) || /scanned|image-only/.test(e.category);

/**
 * Every corpus file through HTTP: upload, reach completed, and where the manifest gives reference text, a
 * word-level F1 of at least 0.9 (born-digital and office) or 0.8 (OCR).
 */
describe('corpus over HTTP', { skip: hasCorpus ? false : 'no ../shared/corpus here' }, () => {
  let s: TestServer;
  let entries: Entry[] = [];
  const ids = new Map<string, string>();
  const results = new Map<string, any>();

  before(async () => {
    s = await startTestServer();
    entries = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8')).files;
    for (const e of entries) {
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(e.id, fs.readFileSync(path.join(CORPUS, e.path))) });
      assert.equal(up.status, 201, `${e.id}: ${JSON.stringify(up.body)}`);
      ids.set(e.id, up.body.id);
    }
    for (const e of entries) results.set(e.id, await waitForStatus(s, `/v1/documents/${ids.get(e.id)}`, 600_000));
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
      const gap = REFERENCE_GAPS[e.id];
      rows.push(`${e.id.padEnd(48)} ${e.format.padEnd(5)} F1 ${f1.toFixed(3)} (P ${precision.toFixed(3)} R ${recall.toFixed(3)}) min ${min}${gap ? ' on recall (reference gap)' : ''}`);
      if ((gap ? recall : f1) < min) below.push(`${e.id}: ${(gap ? recall : f1).toFixed(3)} < ${min}`);
    }
    console.log(rows.join('\n'));
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
