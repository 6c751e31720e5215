import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument } from 'pdf-lib';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { addAndAccept, signUpUser } from '../helpers/accounts.js';
import type { TestUser } from '../helpers/accounts.js';
import { makePdf } from '../helpers/fixtures.js';

/** GET /v1/documents/<id>/file: the original file of uploads, split children and generated documents. */
describe('document file download over HTTP', () => {
  let s: TestServer;
  let ann: TestUser;
  let bob: TestUser;
  let eve: TestUser;
  let pdf: Uint8Array;

  const get = (pathname: string, key: string, headers: Record<string, string> = {}) => fetch(s.url + pathname, { headers: { authorization: `Bearer ${key}`, ...headers } });
  const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

  before(async () => {
    s = await startTestServer();
    [ann, bob, eve] = [await signUpUser(s, 'ann-file@example.com'), await signUpUser(s, 'bob-file@example.com'), await signUpUser(s, 'eve-file@example.com')];
    pdf = await makePdf([
      { heading: 'Quarterly Results', lines: ['Revenue increased by twelve percent.'] },
      { heading: 'Outlook', lines: ['The board expects continued growth next year.'] },
      { heading: 'Appendix', lines: ['Figures are unaudited.'] },
    ]);
  });
  after(async () => {
    await s?.close();
  });

  test('the owner downloads the exact bytes with the stored type, an attachment name encoded per RFC 6266/5987, and ranges', async () => {
    const name = 'Überblick Q3 (100%).pdf';
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, pdf), key: ann.key });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const id = up.body.id as string;
    assert.equal(up.body.file_url, `${s.url}/v1/documents/${id}/file`);
    const got = await s.json(`/v1/documents/${id}`, { key: ann.key });
    assert.equal(got.body.file_url, `${s.url}/v1/documents/${id}/file`);
    const listed = await s.json('/v1/documents', { key: ann.key });
    assert.equal(listed.body.data.find((d: any) => d.id === id).file_url, `${s.url}/v1/documents/${id}/file`);

    const res = await get(`/v1/documents/${id}/file`, ann.key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(res.headers.get('content-length'), String(pdf.length));
    const disposition = res.headers.get('content-disposition')!;
    assert.equal(disposition, `attachment; filename="Uberblick Q3 (100_).pdf"; filename*=UTF-8''%C3%9Cberblick%20Q3%20%28100%25%29.pdf`);
    assert.deepEqual(await bytesOf(res), Buffer.from(pdf));

    // one range: 206 with Content-Range and those bytes
    const head = await get(`/v1/documents/${id}/file`, ann.key, { range: 'bytes=0-9' });
    assert.equal(head.status, 206);
    assert.equal(head.headers.get('content-range'), `bytes 0-9/${pdf.length}`);
    assert.equal(head.headers.get('content-length'), '10');
    assert.deepEqual(await bytesOf(head), Buffer.from(pdf.subarray(0, 10)));
    const middle = await get(`/v1/documents/${id}/file`, ann.key, { range: 'bytes=100-199' });
    assert.equal(middle.status, 206);
    assert.deepEqual(await bytesOf(middle), Buffer.from(pdf.subarray(100, 200)));
    const tail = await get(`/v1/documents/${id}/file`, ann.key, { range: 'bytes=-16' });
    assert.equal(tail.status, 206);
    assert.equal(tail.headers.get('content-range'), `bytes ${pdf.length - 16}-${pdf.length - 1}/${pdf.length}`);
    assert.deepEqual(await bytesOf(tail), Buffer.from(pdf.subarray(pdf.length - 16)));
    const open = await get(`/v1/documents/${id}/file`, ann.key, { range: `bytes=${pdf.length - 5}-` });
    assert.equal(open.status, 206);
    assert.deepEqual(await bytesOf(open), Buffer.from(pdf.subarray(pdf.length - 5)));
    // a suffix longer than the file is the whole file; several ranges or another unit: the whole file, 200
    const longer = await get(`/v1/documents/${id}/file`, ann.key, { range: `bytes=-${pdf.length + 100}` });
    assert.equal(longer.status, 206);
    assert.equal(longer.headers.get('content-range'), `bytes 0-${pdf.length - 1}/${pdf.length}`);
    assert.deepEqual(await bytesOf(longer), Buffer.from(pdf));
    for (const range of ['bytes=0-9,20-29', 'items=0-9', 'nonsense']) {
      const whole = await get(`/v1/documents/${id}/file`, ann.key, { range });
      assert.equal(whole.status, 200, range);
      assert.equal((await bytesOf(whole)).length, pdf.length, range);
    }
    // a range past the end: 416 with the size
    const past = await get(`/v1/documents/${id}/file`, ann.key, { range: `bytes=${pdf.length}-` });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), `bytes */${pdf.length}`);
    await past.arrayBuffer();

    // someone else, an unknown id and a malformed id: 404, as for the other document routes
    for (const [path, key] of [[`/v1/documents/${id}/file`, bob.key], ['/v1/documents/00000000-0000-4000-8000-000000000000/file', ann.key], ['/v1/documents/nope/file', ann.key]] as const) {
      const r = await get(path, key);
      assert.equal(r.status, 404, path);
      assert.equal(((await r.json()) as any).error.code, 'NOT_FOUND');
    }
    assert.equal((await fetch(`${s.url}/v1/documents/${id}/file`)).status, 401);
  });

  test('a plain ASCII name needs no filename*; a name with CR/LF and quotes cannot inject a header', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('notes.txt', 'Minutes of the meeting.'), key: ann.key });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const plain = await get(`/v1/documents/${up.body.id}/file`, ann.key);
    assert.equal(plain.headers.get('content-disposition'), 'attachment; filename="notes.txt"');
    await plain.arrayBuffer();
    // the stored name is what the uploader gave (multipart cannot carry CR/LF): rename it to a hostile one
    await s.runtime.store.repo('documents').update(up.body.id, { name: 'a"\r\nSet-Cookie: x=1\r\n.txt' });
    const res = await get(`/v1/documents/${up.body.id}/file`, ann.key);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('set-cookie'), null);
    assert.match(res.headers.get('content-type')!, /^text\/plain/);
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="a_Set-Cookie: x=1.txt"; filename*=UTF-8''a%22Set-Cookie%3A%20x%3D1.txt`);
    assert.equal(await res.text(), 'Minutes of the meeting.');
  });

  test('an organization document: members may download it, others get 404', async () => {
    const org = await s.json('/api/organizations', { method: 'POST', json: { name: 'File Org', slug: 'file-org' }, key: ann.key });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    await addAndAccept(s, ann, org.body.organization.id, bob, 'member');
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('shared.pdf', pdf, { organization_id: org.body.organization.id }), key: ann.key });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const id = up.body.document.id;
    const asBob = await get(`/v1/documents/${id}/file`, bob.key);
    assert.equal(asBob.status, 200);
    assert.deepEqual(await bytesOf(asBob), Buffer.from(pdf));
    const asEve = await get(`/v1/documents/${id}/file`, eve.key);
    assert.equal(asEve.status, 404);
    await asEve.arrayBuffer();
  });

  test('split sections and generated documents link the file of the document they made', async () => {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('three.pdf', pdf), key: ann.key });
    assert.equal((await waitForStatus(s, `/v1/documents/${up.body.id}`, 120_000, ann.key)).status, 'completed');
    const run = await s.json('/api/split/run', { method: 'POST', json: { document_id: up.body.id, sections: [{ name: 'Results', page_start: 1, page_end: 1 }, { name: 'Rest', page_start: 2, page_end: 3 }] }, key: ann.key });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    for (const sec of run.body.sections) {
      assert.equal(sec.file_url, `${s.url}/v1/documents/${sec.document_id}/file`);
      const res = await get(new URL(sec.file_url).pathname, ann.key);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/pdf');
      const child = await PDFDocument.load(await bytesOf(res));
      assert.equal(child.getPageCount(), sec.page_end - sec.page_start + 1);
    }
    const results = await s.json(`/api/split/results/${run.body.job_id}`, { key: ann.key });
    assert.deepEqual(results.body.sections.map((x: any) => x.file_url), run.body.sections.map((x: any) => x.file_url));
    // the spec's camelCase sections name the child; the child document links its file
    const listed = await s.json(`/api/documents/${up.body.id}/sections`, { key: ann.key });
    for (const [i, x] of listed.body.sections.entries()) assert.equal((await s.json(`/v1/documents/${x.childDocumentId}`, { key: ann.key })).body.file_url, run.body.sections[i].file_url);

    const gen = await s.json('/api/generate/run', { method: 'POST', json: { output_format: 'markdown', template_prompt: 'A note on the quarterly results.', source_document_ids: [up.body.id] }, key: ann.key });
    assert.equal(gen.status, 200, JSON.stringify(gen.body));
    assert.equal(gen.body.document_file_url, `${s.url}/v1/documents/${gen.body.generated_document_id}/file`);
    const file = await get(new URL(gen.body.document_file_url).pathname, ann.key);
    assert.equal(file.status, 200);
    assert.match(file.headers.get('content-disposition')!, /^attachment; filename=".+\.md"/);
    assert.ok((await file.text()).length > 0);
    const job = await s.json(`/api/generate/jobs/${gen.body.job_id}`, { key: ann.key });
    assert.equal(job.body.result.document_file_url, gen.body.document_file_url);
  });
});
