import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { corpusRoot } from '../helpers/corpus.js';
import { boundaryCounts, drawCombos, joinPdfs, receiptFiles, receiptsPdf, seeded, splitPool } from '../helpers/split-combos.js';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Split on real documents (runs when the shared corpus is there): ten seeded random combinations of three or
 * four different corpus PDFs with a text layer, joined with pdf-lib, split back at exactly their true
 * boundaries with method ai (POST /api/split/analyze, the detection of run; one file is also split for real) for at least 9 of 10 (the figures over 50 combinations, scans and receipts are
 * bench/split.ts's); and a scanned PDF of four corpus receipts splits per receipt, each child's text being
 * the parent's OCR text of its page.
 */
const root = corpusRoot();

describe('split on the corpus', { skip: root ? false : 'corpus not present' }, () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  async function uploaded(name: string, bytes: Uint8Array): Promise<string> {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    return up.body.id;
  }
  const completed = async (id: string) => {
    const d = await waitForStatus(s, `/v1/documents/${id}`, 180_000);
    assert.equal(d.status, 'completed', JSON.stringify(d));
    return d;
  };
  const text = async (id: string) => (await s.json(`/v1/documents/${id}/content?response=text`)).body.text as string;

  test('ten random combinations of corpus PDFs split back at their true boundaries (at least 9 of 10)', async () => {
    const combos = drawCombos(splitPool(root!), 10, 16);
    const files = await Promise.all(combos.map((c) => joinPdfs(root!, c)));
    const ids = [];
    for (const [i, f] of files.entries()) ids.push(await uploaded(`combined-${i}.pdf`, f.bytes));
    const outcomes: string[] = [];
    let exact = 0;
    let checkedText = false;
    for (const [i, id] of ids.entries()) {
      const doc = await completed(id);
      assert.equal(doc.pages, files[i]!.pages);
      // analyze is the detection run uses; the first exact file is also split for real (children made)
      const found = await s.json('/api/split/analyze', { method: 'POST', json: { document_id: id, config: { method: 'ai' } } });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      const got = found.body.suggested_sections.map((x: any) => x.page_start);
      const k = boundaryCounts(files[i]!.starts, got);
      if (k.exact) exact++;
      outcomes.push(`${k.exact ? 'ok' : 'XX'} ${combos[i]!.map((e) => e.id).join(' + ')}: want ${files[i]!.starts.join(',')} got ${got.join(',')}`);
      if (k.exact && !checkedText) {
        checkedText = true;
        const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: id, config: { method: 'ai' } } });
        assert.equal(run.status, 200, JSON.stringify(run.body));
        assert.deepEqual(run.body.sections.map((x: any) => x.page_start), got);
        // the children of an exact split are the joined documents again: their text is the parent's for their pages
        const parent = await text(id);
        const texts = [];
        for (const sec of run.body.sections) {
          const child = await completed(sec.document_id);
          assert.equal(child.pages, sec.page_end - sec.page_start + 1);
          texts.push(await text(sec.document_id));
        }
        assert.ok(texts.every((t) => parent.includes(t)));
        assert.equal(texts.filter(Boolean).join('\n\n'), parent);
      }
    }
    assert.ok(exact >= 9, `split exactly: ${exact}/10\n${outcomes.join('\n')}`);
  });

  test('a scanned PDF of four receipts splits per receipt', { skip: receiptFiles(root ?? '').length < 4 ? 'no receipts in the corpus' : false }, async () => {
    const all = receiptFiles(root!);
    const next = seeded(7);
    const pick: string[] = [];
    while (pick.length < 4) {
      const f = all[Math.floor(next() * all.length)]!;
      if (!pick.includes(f)) pick.push(f);
    }
    const id = await uploaded('receipts.pdf', await receiptsPdf(pick));
    assert.equal((await completed(id)).pages, 4);
    const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: id, config: { method: 'ai' } } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(
      run.body.sections.map((x: any) => [x.page_start, x.page_end]),
      [[1, 1], [2, 2], [3, 3], [4, 4]],
      `${pick.map((f) => path.basename(f)).join(' + ')}: ${JSON.stringify(run.body.sections.map((x: any) => x.metadata?.reason))}`,
    );
    const parent = await text(id);
    const texts = [];
    for (const sec of run.body.sections) {
      await completed(sec.document_id);
      const t = await text(sec.document_id);
      assert.ok(t.length > 20 && parent.includes(t), 'the receipt child holds the OCR text of its page');
      texts.push(t);
    }
    assert.equal(texts.join('\n\n'), parent);
    assert.ok(run.body.sections.some((x: any) => ['receipt', 'invoice'].includes(x.metadata?.document_type)), JSON.stringify(run.body.sections.map((x: any) => x.metadata?.document_type)));
  });
});
