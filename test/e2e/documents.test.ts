// @services: document lists (limit, offset, total, status filter), deletion and job states in the store
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { createKey, findOrCreateUser } from '@quire/server';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { makeDocx, makePdf, makeXlsx } from '../helpers/fixtures.js';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { filesUnder } from '../helpers/assertions.js';


describe('documents, upload and parse over HTTP', () => {
  let s: TestServer;
  let pdf: Uint8Array;
  let fileServer: http.Server;
  let fileBase = '';
  const hooks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let hookFailures = 0;

  before(async () => {
    s = await startTestServer({ env: { QUIRE_WEBHOOK_RETRY_DELAYS_S: '0.2,0.2,0.2,0.2' } });
    pdf = await makePdf([
      { heading: 'Quarterly Results', lines: ['Revenue increased by twelve percent.', 'Costs were stable across regions.'] },
      { heading: 'Outlook', lines: ['The board expects continued growth next year.'] },
      { heading: 'Appendix', lines: ['Figures are unaudited.'] },
    ]);
    fileServer = http.createServer((req, res) => {
      if (req.url === '/report.pdf') {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.end(Buffer.from(pdf));
      } else if (req.url === '/hook' && req.method === 'POST') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          if (hookFailures > 0) {
            hookFailures--;
            res.writeHead(500).end();
            return;
          }
          hooks.push({ headers: req.headers, body });
          res.writeHead(200).end('ok');
        });
      } else res.writeHead(404).end();
    });
    await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', () => r()));
    fileBase = `http://127.0.0.1:${(fileServer.address() as any).port}`;
  });
  after(async () => {
    await s?.close();
    fileServer?.close();
  });

  test('upload → pending with pages null → completed with text and chunks (pdf, docx, xlsx, csv, html, txt)', async () => {
    const inputs: [string, Uint8Array | string, RegExp][] = [
      ['report.pdf', pdf, /Revenue increased by twelve percent/],
      ['safety.docx', await makeDocx(), /zero incidents/],
      ['budget.xlsx', await makeXlsx(), /Engineering/],
      ['people.csv', 'name;city\nAda;London\nLinus;Helsinki\n', /Helsinki/],
      ['page.html', '<html><head><script>var secret=1</script></head><body><h1>Duck facts</h1><p>Ducks are waterfowl.</p></body></html>', /Ducks are waterfowl/],
      ['notes.txt', 'Minutes\n\nThe committee approved the plan.', /approved the plan/],
    ];
    for (const [name, bytes, expect] of inputs) {
      const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, bytes) });
      assert.equal(up.status, 201, `${name}: ${JSON.stringify(up.body)}`);
      assert.equal(up.body.object, 'document');
      assert.equal(up.body.status, 'pending');
      assert.equal(up.body.pages, null);
      const done = await waitForStatus(s, `/v1/documents/${up.body.id}`);
      assert.equal(done.status, 'completed', `${name}: ${JSON.stringify(done)}`);
      assert.ok(done.pages >= 1);
      const content = await s.json(`/v1/documents/${up.body.id}/content?response=full`);
      assert.equal(content.body.object, 'document.content');
      assert.match(content.body.text, expect, name);
      assert.ok(content.body.chunks.length >= 1);
      for (const c of content.body.chunks) {
        assert.equal(typeof c.id, 'string');
        assert.equal(typeof c.index, 'number');
        assert.ok(c.page >= 1);
        assert.ok(c.span.end >= c.span.start);
      }
      if (name.endsWith('.pdf')) {
        assert.equal(done.pages, 3);
        assert.ok(content.body.chunks.some((c: any) => c.bbox && c.bbox.width > 0), 'pdf chunks carry bboxes');
      }
      if (name === 'page.html') assert.doesNotMatch(content.body.text, /secret/);
      if (name === 'budget.xlsx' || name === 'people.csv') assert.ok(content.body.chunks.some((c: any) => c.type === 'table'), `${name} yields table chunks`);
      const textOnly = await s.json(`/v1/documents/${up.body.id}/content`);
      assert.equal(textOnly.body.chunks, undefined);
      const chunksOnly = await s.json(`/v1/documents/${up.body.id}/content?response=chunks`);
      assert.equal(chunksOnly.body.text, undefined);
    }
  });

  test('list: limit, offset, has_more, total and the status filter', async () => {
    const all = await s.json('/v1/documents?limit=100');
    assert.equal(all.body.object, 'list');
    assert.ok(all.body.total >= 6);
    const page = await s.json('/v1/documents?limit=2&offset=1');
    assert.equal(page.body.data.length, 2);
    assert.equal(page.body.has_more, true);
    assert.equal(page.body.total, all.body.total);
    assert.equal(page.body.data[0].id, all.body.data[1].id);
    const completed = await s.json('/v1/documents?status=completed&limit=100');
    assert.ok(completed.body.data.every((d: any) => d.status === 'completed'));
    const bad = await s.json('/v1/documents?status=done');
    assert.equal(bad.status, 400);
  });

  test('another key never sees, reads or deletes my documents', async () => {
    const other = await findOrCreateUser(s.runtime.store, 'other@test.local', 'premium');
    const { key } = await createKey(s.runtime.store, other.id, 'other');
    const mine = await s.json('/v1/documents?limit=1');
    const id = mine.body.data[0].id;
    assert.equal((await s.json('/v1/documents', { key })).body.total, 0);
    assert.equal((await s.json(`/v1/documents/${id}`, { key })).status, 404);
    assert.equal((await s.json(`/v1/documents/${id}/content`, { key })).status, 404);
    assert.equal((await s.json(`/v1/jobs/${id}`, { key })).status, 404);
    assert.equal((await s.json(`/v1/documents/${id}`, { key, method: 'DELETE' })).status, 404);
    assert.equal((await s.json(`/v1/documents/${id}`)).status, 200);
  });

  test('delete removes the file, content and chunks, and is idempotent', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('gone.txt', 'Temporary text that will be deleted.') });
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    const before = filesUnder(path.join(s.dataDir, 'files')).filter((f) => f.includes(up.body.id));
    assert.ok(before.length >= 2, `stored original and content: ${before}`);
    const del = await s.json(`/v1/documents/${up.body.id}`, { method: 'DELETE' });
    assert.deepEqual(del.body, { id: up.body.id, object: 'document', deleted: true });
    assert.deepEqual(filesUnder(path.join(s.dataDir, 'files')).filter((f) => f.includes(up.body.id)), []);
    assert.equal(await s.runtime.store.repo('chunks').count({ document_id: up.body.id }), 0);
    assert.equal((await s.json(`/v1/documents/${up.body.id}`)).status, 404);
    // a deleted (or unknown, or someone else's) id answers 404 alike, so that a delete reveals nothing
    const again = await s.json(`/v1/documents/${up.body.id}`, { method: 'DELETE' });
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'NOT_FOUND');
  });

  test('a chunk that runs over two pages lists both pages with its box on each', async () => {
    // one section whose text goes on at the top of the next page, with no heading there
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
    const p1 = pdf.addPage([612, 792]);
    p1.drawText('Maintenance schedule', { x: 72, y: 720, size: 20, font: bold });
    ['The pumps are inspected every spring by the facilities team.', 'Filters are replaced when the pressure drop exceeds the limit.'].forEach((l, i) => p1.drawText(l, { x: 72, y: 680 - i * 18, size: 11, font }));
    const p2 = pdf.addPage([612, 792]);
    ['Valves are greased twice a year and their seals checked.', 'Every inspection is logged with its date and the name of the technician.'].forEach((l, i) => p2.drawText(l, { x: 72, y: 720 - i * 18, size: 11, font }));
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('schedule.pdf', await pdf.save()) });
    assert.equal(up.status, 201);
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`)).status, 'completed');
    const content = await s.json(`/v1/documents/${up.body.id}/content?response=chunks`);
    const spanning = content.body.chunks.find((c: any) => /pumps/.test(c.content) && /Valves/.test(c.content));
    assert.ok(spanning, `one chunk holds text of both pages: ${JSON.stringify(content.body.chunks.map((c: any) => [c.page, c.content]))}`);
    assert.equal(spanning.page, 1);
    assert.deepEqual(spanning.pages, [1, 2]);
    assert.deepEqual(spanning.boxes.map((b: any) => b.page), [1, 2]);
    assert.ok(spanning.boxes[1].bbox.y < 200, `the box on page 2 is at its top: ${JSON.stringify(spanning.boxes[1])}`);
  });

  test('bad inputs: unsupported format 422, corrupt pdf fails, missing file 400 — nothing half-written', async () => {
    const count = (await s.json('/v1/documents?limit=1')).body.total;
    const exe = await s.json('/v1/documents', { method: 'POST', body: uploadForm('tool.exe', Buffer.from([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0])) });
    assert.equal(exe.status, 422);
    assert.equal(exe.body.error.code, 'UNSUPPORTED_FORMAT');
    const none = await s.json('/v1/documents', { method: 'POST', body: (() => { const f = new FormData(); f.append('x', 'y'); return f; })() });
    assert.equal(none.status, 400);
    assert.equal(none.body.error.code, 'VALIDATION_ERROR');
    const json = await s.json('/v1/documents', { method: 'POST', json: { file: 'x' } });
    assert.equal(json.status, 400);
    assert.equal((await s.json('/v1/documents?limit=1')).body.total, count, 'no document registered for refused uploads');
    // every stored original belongs to a document row: refused uploads left nothing behind
    for (const f of filesUnder(path.join(s.dataDir, 'files', 'documents'))) {
      const id = f.split(path.sep)[0]!;
      assert.ok(await s.runtime.store.repo('documents').get(id), `orphan file ${f}`);
    }

    const corrupt = await s.json('/v1/documents', { method: 'POST', body: uploadForm('broken.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntrailer\n%%EOF-truncated') });
    assert.equal(corrupt.status, 201);
    const failed = await waitForStatus(s, `/v1/jobs/${corrupt.body.id}`);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /pdf/i);
    const docFailed = await s.json(`/v1/documents/${corrupt.body.id}`);
    assert.equal(docFailed.body.status, 'failed');
    const sync = await s.json('/api/parse', { method: 'POST', body: uploadForm('broken.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog >>\ntrailer\n%%EOF-truncated') });
    assert.equal(sync.status, 500);
    assert.equal(sync.body.error.code, 'PROCESSING_ERROR');
    assert.match(sync.body.error.message, /pdf/i);
    assert.deepEqual(filesUnder(path.join(s.dataDir, 'files', 'jobs')), [], 'sync parse leaves no input behind');
  });

  test('/api/upload: full response; parsing_config validated naming the option; organization checked', async () => {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('memo.txt', 'Memo: the office moves in May.', { parsing_config: JSON.stringify({ chunking: { strategy: 'fixed', max_chunk_size: 200, overlap: 20 }, ocr: { enabled: true, language: 'auto' } }) }) });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.match(up.body.file_id, /^svc:\/\/[0-9a-f-]{36}$/);
    assert.equal(up.body.document.status, 'pending');
    assert.equal(up.body.document.file_type, 'txt');
    assert.equal(up.body.document.parsing_config.chunking.strategy, 'fixed');
    assert.equal(up.body.filename, 'memo.txt');
    assert.equal(up.body.size, 30);
    assert.equal(up.body.queue.queued, true);
    assert.deepEqual(Object.keys(up.body.usage).sort(), ['credits', 'num_pages']);
    const bad = await s.json('/api/upload', { method: 'POST', body: uploadForm('memo.txt', 'x', { parsing_config: JSON.stringify({ chunking: { max_chunk_size: 5 } }) }) });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.details.some((d: any) => d.field === 'parsing_config.chunking.max_chunk_size'), JSON.stringify(bad.body));
    const notJson = await s.json('/api/upload', { method: 'POST', body: uploadForm('memo.txt', 'x', { parsing_config: '{oops' }) });
    assert.equal(notJson.status, 400);
    const org = await s.json('/api/upload', { method: 'POST', body: uploadForm('memo.txt', 'x', { organization_id: '11111111-1111-4111-8111-111111111111' }) });
    assert.equal(org.status, 404);
    const traversal = await s.json('/api/upload', { method: 'POST', body: uploadForm('../../etc/passwd.txt', 'just text') });
    assert.equal(traversal.status, 200);
    assert.equal(traversal.body.filename, 'passwd.txt');
  });

  test('413 past the size limit while streaming, nothing left on disk', async () => {
    const small = await startTestServer({ env: { QUIRE_MAX_UPLOAD_MB: '1' } });
    try {
      const big = Buffer.alloc(3 * 1024 * 1024, 'a');
      const r = await small.json('/v1/documents', { method: 'POST', body: uploadForm('big.txt', big) });
      assert.equal(r.status, 413);
      assert.equal(r.body.error.code, 'FILE_TOO_LARGE');
      const p = await small.json('/api/parse', { method: 'POST', body: uploadForm('big.txt', big) });
      assert.equal(p.status, 413);
      assert.deepEqual(filesUnder(path.join(small.dataDir, 'files')), []);
      assert.equal((await small.json('/v1/documents')).body.total, 0);
    } finally {
      await small.close();
    }
  });

  test('sync parse: multipart with config, JSON with a URL and with svc://; chunk options honoured; studio link resolves', async () => {
    const cfg = { chunking: { strategy: 'page' }, formatting: { table_output_format: 'html' } };
    const a = await s.json('/api/parse', { method: 'POST', body: uploadForm('report.pdf', pdf, { config: JSON.stringify(cfg) }) });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.result.type, 'full');
    assert.equal(a.body.usage.num_pages, 3);
    assert.equal(a.body.usage.credits, 4.5);
    assert.equal(a.body.result.chunks.length, 3, 'page strategy: one chunk per page');
    assert.deepEqual(a.body.result.chunks.map((c: any) => c.page), [1, 2, 3]);
    for (const c of a.body.result.chunks) {
      assert.ok(['text', 'table'].includes(c.metadata.type));
      assert.ok(c.metadata.confidence > 0 && c.metadata.confidence <= 1);
    }
    assert.equal(typeof a.body.duration, 'number');
    const studio = await fetch(a.body.studio_link);
    assert.equal(studio.status, 200);
    assert.match(await studio.text(), /Quarterly Results/);
    const tampered = await fetch(a.body.studio_link.replace(/sig=([0-9a-f])/, (_m: string, h: string) => `sig=${h === '0' ? '1' : '0'}`));
    assert.equal(tampered.status, 401);

    const b = await s.json('/api/parse', { method: 'POST', json: { input: `${fileBase}/report.pdf`, config: { chunking: { strategy: 'fixed', max_chunk_size: 100, overlap: 10 } } } });
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.ok(b.body.result.chunks.length >= 2, JSON.stringify(b.body.result.chunks));
    assert.ok(b.body.result.chunks.every((c: any) => c.content.length <= 100));

    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('report.pdf', pdf) });
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    const c = await s.json('/api/parse', { method: 'POST', json: { input: `svc://${up.body.id}` } });
    assert.equal(c.status, 200);
    assert.match(c.body.result.chunks.map((x: any) => x.content).join(' '), /continued growth/);
    const missing = await s.json('/api/parse', { method: 'POST', json: { input: 'svc://00000000-0000-4000-8000-000000000000' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
  });

  test('URL inputs: private, loopback (not allow-listed), link-local and non-http are refused without fetching', async () => {
    for (const input of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/x.pdf', 'http://[::1]:9/x.pdf', 'ftp://example.com/x.pdf', 'file:///etc/passwd', 'http://user:pw@example.com/x.pdf']) {
      const r = await s.json('/api/parse', { method: 'POST', json: { input } });
      assert.equal(r.status, 400, `${input}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
  });

  test('async parse: job pending → completed, signed callback delivered and retried after a failure', async () => {
    hookFailures = 1;
    const r = await s.json('/api/parse/async', { method: 'POST', json: { input: `${fileBase}/report.pdf`, webhook_url: `${fileBase}/hook` } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.status, 'pending');
    assert.equal(r.body.status_url, `${s.url}/api/jobs/${r.body.job_id}`);
    assert.equal(r.body.webhook_url, `${fileBase}/hook`);
    const job = await waitForStatus(s, `/api/jobs/${r.body.job_id}`);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.result.type, 'full');
    const deadline = Date.now() + 20_000;
    while (!hooks.length && Date.now() < deadline) await new Promise((x) => setTimeout(x, 100));
    assert.equal(hooks.length, 1, 'delivered once after one failed attempt');
    const payload = JSON.parse(hooks[0]!.body);
    assert.equal(payload.job_id, r.body.job_id);
    assert.equal(payload.status, 'completed');
    assert.equal(payload.usage.num_pages, 3);
    assert.ok(payload.result.chunks.length >= 1);
    const { body: sec } = await s.json('/api/webhooks/callback-secret');
    const expected = `sha256=${createHmac('sha256', sec.secret).update(hooks[0]!.body).digest('hex')}`;
    assert.equal(hooks[0]!.headers['x-svc-signature'], expected);
    const rows = await s.runtime.store.repo('webhook_deliveries').find({ url: `${fileBase}/hook` });
    // the callback key is derived when the callback is sent, never kept with the delivery
    assert.ok(rows.every((r) => r.secret === ''), 'no key stored with the delivery');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.status, 'delivered');
    assert.equal(rows[0]!.attempts, 2);
    const refused = await s.json('/api/parse/async', { method: 'POST', json: { input: `${fileBase}/report.pdf`, webhook_url: 'http://10.1.2.3/hook' } });
    assert.equal(refused.status, 400);
  });

  test('presigned upload: signed URL, PUT streams the bytes, single use, document completes', async () => {
    const p = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: 'big-report.pdf', content_type: 'application/pdf', file_size: pdf.length } });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    assert.equal(p.body.method, 'PUT');
    assert.ok(Date.parse(p.body.expires_at) > Date.now());
    const put = await fetch(p.body.upload_url, { method: 'PUT', headers: p.body.headers, body: Buffer.from(pdf) });
    assert.equal(put.status, 200, await put.clone().text());
    const id = p.body.file_id.slice('svc://'.length);
    const done = await waitForStatus(s, `/v1/documents/${id}`);
    assert.equal(done.status, 'completed');
    assert.equal(done.pages, 3);
    const again = await fetch(p.body.upload_url, { method: 'PUT', headers: p.body.headers, body: Buffer.from(pdf) });
    assert.equal(again.status, 409);
    const forged = await fetch(p.body.upload_url.replace(/token=([0-9a-f])/, (_m: string, h: string) => `token=${h === '0' ? '1' : '0'}`), { method: 'PUT', body: 'x' });
    assert.equal(forged.status, 401);
    const tooBig = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: 'huge.pdf', file_size: 6 * 1024 ** 3 } });
    assert.equal(tooBig.status, 413);
    const p2 = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: 'x.txt', file_size: 10 } });
    const over = await fetch(p2.body.upload_url, { method: 'PUT', body: 'this is more than ten bytes' });
    assert.equal(over.status, 413);
    // only filename is required: without file_size the size limit is checked as the bytes arrive
    const bare = await s.json('/api/upload/presigned', { method: 'POST', json: { filename: 'minutes.txt' } });
    assert.equal(bare.status, 200, JSON.stringify(bare.body));
    const sent = await fetch(bare.body.upload_url, { method: 'PUT', headers: bare.body.headers, body: 'Minutes: the committee approved the plan.' });
    assert.equal(sent.status, 200, await sent.clone().text());
    const bareDoc = await waitForStatus(s, `/v1/documents/${bare.body.file_id.slice('svc://'.length)}`);
    assert.equal(bareDoc.status, 'completed');
    assert.equal(bareDoc.name, 'minutes.txt');
  });

  test('presets: create merged with defaults, list by scope, patch validated, delete', async () => {
    const c = await s.json('/api/parse/presets', { method: 'POST', json: { name: 'Small chunks', config: { chunking: { max_chunk_size: 300 } } } });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const preset = c.body.preset;
    assert.equal(preset.scope, 'user');
    assert.equal(preset.config.chunking.max_chunk_size, 300);
    assert.equal(preset.config.chunking.strategy, 'semantic', 'merged with defaults');
    assert.equal(preset.config.formatting.table_output_format, 'markdown');
    const list = await s.json('/api/parse/presets?scope=user');
    assert.ok(list.body.presets.some((p: any) => p.id === preset.id));
    assert.equal((await s.json('/api/parse/presets?scope=organization')).body.presets.length, 0);
    const patched = await s.json(`/api/parse/presets/${preset.id}`, { method: 'PATCH', json: { config: { formatting: { table_output_format: 'json' } } } });
    assert.equal(patched.body.preset.config.formatting.table_output_format, 'json');
    assert.equal(patched.body.preset.config.chunking.max_chunk_size, 300, 'earlier settings kept');
    const invalid = await s.json(`/api/parse/presets/${preset.id}`, { method: 'PATCH', json: { config: { chunking: { strategy: 'words' } } } });
    assert.equal(invalid.status, 400);
    const orgScope = await s.json('/api/parse/presets', { method: 'POST', json: { name: 'Org', scope: 'organization' } });
    assert.equal(orgScope.status, 400);
    const other = await findOrCreateUser(s.runtime.store, 'presets@test.local', 'premium');
    const { key } = await createKey(s.runtime.store, other.id, 'p');
    assert.equal((await s.json(`/api/parse/presets/${preset.id}`, { key })).status, 404);
    assert.deepEqual((await s.json(`/api/parse/presets/${preset.id}`, { method: 'DELETE' })).body, { success: true });
    assert.equal((await s.json(`/api/parse/presets/${preset.id}`)).status, 404);
  });

  test('public conversion: anonymous gets 2 pages and truncated; a key gets all; non-PDF is 422', async () => {
    const anon = await s.json('/api/pdf-to-text', { method: 'POST', key: null, body: uploadForm('r.pdf', pdf) });
    assert.equal(anon.status, 200, JSON.stringify(anon.body));
    assert.equal(anon.body.pageCount, 3);
    assert.equal(anon.body.pagesExtracted, 2);
    assert.equal(anon.body.truncated, true);
    assert.match(anon.body.text, /Outlook/);
    assert.doesNotMatch(anon.body.text, /Appendix/);
    assert.equal(anon.body.fileName, 'r.pdf');
    const full = await s.json('/api/pdf-to-markdown', { method: 'POST', body: uploadForm('r.pdf', pdf) });
    assert.equal(full.body.truncated, false);
    assert.equal(full.body.pagesExtracted, 3);
    assert.match(full.body.markdown, /#+ Appendix/);
    const js = await s.json('/api/pdf-to-json', { method: 'POST', body: uploadForm('r.pdf', pdf) });
    assert.equal(js.body.metadata.numPages, 3);
    assert.equal(js.body.metadata.title, 'Fixture report');
    assert.equal(js.body.pages.length, 3);
    const block = js.body.pages[0].blocks[0];
    assert.deepEqual(Object.keys(block.bbox).sort(), ['height', 'left', 'page', 'top', 'width']);
    assert.equal(typeof block.confidence, 'string');
    const notPdf = await s.json('/api/pdf-to-text', { method: 'POST', key: null, body: uploadForm('a.txt', 'hello') });
    assert.equal(notPdf.status, 422);
  });

  test('document events: uploaded, processing, completed with the spec data', async () => {
    const seen: { type: string; data: any }[] = [];
    const off = s.runtime.events.on('*', (e) => void seen.push({ type: e.type, data: e.data }));
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('events.txt', 'Event test body.') });
    await waitForStatus(s, `/v1/documents/${up.body.id}`);
    const deadline = Date.now() + 5000;
    while (!seen.some((e) => e.type === 'document.completed' && e.data.id === up.body.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    off();
    const mine = seen.filter((e) => e.data.id === up.body.id).map((e) => e.type);
    assert.deepEqual(mine.slice(0, 3), ['document.uploaded', 'document.processing', 'document.completed']);
    const completed = seen.find((e) => e.type === 'document.completed' && e.data.id === up.body.id)!.data;
    assert.deepEqual(Object.keys(completed).sort(), ['file_size', 'file_type', 'id', 'name', 'pages', 'processing_time_ms', 'status']);
    assert.equal(completed.status, 'completed');
  });
});
