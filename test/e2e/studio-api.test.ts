import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, findOrCreateUser } from '@quire/server';
import { makeXlsx } from '../helpers/fixtures.js';
import { startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { invoicePdf } from '../helpers/studio.js';

/** The routes the studio reads (layout, Markdown, page images, the signed studio_link routes), over HTTP. */

/** Width and height from a PNG's header. */
function pngSize(b: Buffer): { width: number; height: number; colour: 'grey' | 'rgb' | number } {
  assert.equal(b.subarray(1, 4).toString('latin1'), 'PNG', 'a PNG');
  const type = b.readUInt8(25);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), colour: type === 0 ? 'grey' : type === 2 ? 'rgb' : type };
}

describe('studio API: layout and page images', () => {
  let s: TestServer;
  let otherKey: string;

  before(async () => {
    s = await startTestServer();
    const other = await findOrCreateUser(s.runtime.store, 'other-studio@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'other')).key;
  });
  after(async () => {
    await s?.close();
  });

  test('a PDF: its layout in points, page images drawn at the asked resolution; pages not there, other users and bad signatures refused', async () => {
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('two.pdf', await invoicePdf(1)) });
    const id = up.body.document.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${id}`)).status, 'completed');
    const layout = await s.json(`/api/documents/${id}/layout`);
    assert.equal(layout.status, 200, JSON.stringify(layout.body));
    assert.equal(layout.body.page_images, 'rendered');
    assert.deepEqual(layout.body.pages.map((p: any) => [p.number, p.width, p.height]), [[1, 612, 792], [2, 612, 792]]);
    const heading = layout.body.blocks.find((b: any) => b.type === 'heading' && b.page === 1);
    assert.equal(heading.text, 'Harbour Supplies Ltd');
    // drawn at y 720 (from the bottom, 22 pt): about 50-72 pt from the top
    assert.ok(heading.bbox.y > 40 && heading.bbox.y < 80 && heading.bbox.x > 60 && heading.bbox.x < 80, JSON.stringify(heading.bbox));
    assert.ok(layout.body.chunks.length >= 1 && layout.body.chunks[0].boxes.length >= 1);
    const md = await s.api(`/api/documents/${id}/markdown`);
    assert.match(md.headers.get('content-type') ?? '', /text\/markdown/);
    assert.match(await md.text(), /^# Harbour Supplies Ltd/m);
    assert.equal((await s.api(`/api/documents/${id}/markdown`, { key: otherKey })).status, 404);
    assert.equal(layout.body.pages[0].words, undefined, 'no word lists');

    const img = await s.api(`/api/documents/${id}/pages/1/image?dpi=72`);
    assert.equal(img.status, 200);
    assert.equal(img.headers.get('content-type'), 'image/png');
    assert.match(img.headers.get('cache-control') ?? '', /private/);
    const png = Buffer.from(await img.arrayBuffer());
    // a page of black text is sent in greyscale, a page with colour in colour
    assert.deepEqual(pngSize(png), { width: 612, height: 792, colour: 'grey' });
    assert.deepEqual(pngSize(Buffer.from(await (await s.api(`/api/documents/${id}/pages/2/image`)).arrayBuffer())), { width: Math.ceil((612 * 110) / 72), height: Math.ceil((792 * 110) / 72), colour: 'rgb' });
    for (const n of ['0', '3', 'x', '99999999']) assert.equal((await s.api(`/api/documents/${id}/pages/${n}/image`)).status, 404, `page ${n}`);
    assert.equal((await s.api(`/api/documents/${id}/pages/1/image?dpi=5000`)).status, 400);
    assert.equal((await s.json(`/api/documents/${id}/layout`, { key: otherKey })).status, 404);
    assert.equal((await s.api(`/api/documents/${id}/pages/1/image`, { key: otherKey })).status, 404);
    assert.equal((await s.api(`/api/documents/${id}/pages/1/image`, { key: null })).status, 401);

    // the signed routes of a parse's studio_link
    const parsed = await s.json('/api/parse', { method: 'POST', json: { input: `svc://${id}` } });
    const link = new URL(parsed.body.studio_link);
    const signed = await s.json(`/studio/jobs/${parsed.body.job_id}/layout${link.search}`, { key: null });
    assert.equal(signed.status, 200);
    assert.equal(signed.body.page_images, 'rendered');
    assert.equal((await s.api(`/studio/jobs/${parsed.body.job_id}/pages/1/image${link.search}`, { key: null })).status, 200);
    const forged = link.search.replace(/sig=([0-9a-f])/, (_m, h: string) => `sig=${h === '0' ? '1' : '0'}`);
    assert.equal((await s.api(`/studio/jobs/${parsed.body.job_id}/layout${forged}`, { key: null })).status, 401);
    assert.equal((await s.api(`/studio/jobs/${parsed.body.job_id}/pages/1/image${forged}`, { key: null })).status, 401);
    // a browser that opens the link is sent to the app; other clients keep the plain page
    const nav = await fetch(parsed.body.studio_link, { redirect: 'manual', headers: { 'sec-fetch-dest': 'document' } });
    assert.equal(nav.status, 302);
    assert.equal(nav.headers.get('location'), `/studio/shared/${parsed.body.job_id}${link.search}`);
    assert.equal((await fetch(parsed.body.studio_link, { redirect: 'manual' })).status, 200);

    // an image document: its page 1 is the file as uploaded; a spreadsheet has no page images
    const pic = await s.json('/api/upload', { method: 'POST', body: uploadForm('page.png', png, { parsing_config: JSON.stringify({ ocr: { enabled: false } }) }, 'image/png') });
    await waitForStatus(s, `/v1/documents/${pic.body.document.id}`);
    const same = await s.api(`/api/documents/${pic.body.document.id}/pages/1/image`);
    assert.equal(same.headers.get('content-type'), 'image/png');
    assert.ok(Buffer.from(await same.arrayBuffer()).equals(png), 'the uploaded bytes');
    assert.equal((await s.api(`/api/documents/${pic.body.document.id}/pages/2/image`)).status, 404);
    const sheet = await s.json('/api/upload', { method: 'POST', body: uploadForm('book.xlsx', await makeXlsx()) });
    assert.equal((await waitForStatus(s, `/v1/documents/${sheet.body.document.id}`)).status, 'completed');
    assert.equal((await s.json(`/api/documents/${sheet.body.document.id}/layout`)).body.page_images, null);
    assert.equal((await s.api(`/api/documents/${sheet.body.document.id}/pages/1/image`)).status, 404);
  });

  test("the privacy page's latest export: null before any, then the caller's own (as GET /api/gdpr/export), never another user's", async () => {
    assert.deepEqual((await s.json('/api/studio/privacy/export', { key: otherKey })).body, { export: null });
    assert.equal((await s.json('/api/studio/privacy/export', { key: null })).status, 401);
    const started = await s.json('/api/gdpr/export', { method: 'POST' });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const done = await until('the export', async () => {
      const r = (await s.json('/api/studio/privacy/export')).body.export;
      return r?.status === 'completed' ? r : null;
    });
    assert.equal(done.request_id, started.body.request_id);
    const same = (await s.json('/api/gdpr/export')).body;
    assert.deepEqual({ ...done, file_url: null }, { ...same, file_url: null });
    assert.match(done.file_url, /\/api\/gdpr\/export\/download\//);
    assert.deepEqual((await s.json('/api/studio/privacy/export', { key: otherKey })).body, { export: null });
  });
});
