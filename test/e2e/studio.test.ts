import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { CHROMIUM_SKIP as skip, RESULTS, a11yProblems, invoicePdf, openStudioBrowser } from '../helpers/studio.js';

/**
 * The studio in a real browser (Debian's chromium driven by playwright-core): sign up, keys, upload, the
 * document view with its boxes, extraction evidence, knowledge-base chat, the signed studio_link, a long
 * PDF that loads its pages lazily, webhooks, workflows, sign-out; labels and contrast on every page; no
 * console errors. Screenshots go to test-results/ for people to look at. (The routes the studio reads are
 * tested without a browser in studio-api.test.ts.)
 */

const PASSWORD = 'Harbour-Light7!';

describe('studio in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleErrors: string[] = [];
  let documentUrl = '';
  /** Ada's key (made in the studio): the API calls of the tests act as the user signed in in the browser */
  let adaKey = '';

  before(async () => {
    s = await startTestServer();
    ({ browser, context, page, consoleErrors } = await openStudioBrowser());
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('the app is served with its own strict policy: hashed assets cached, index.html for app paths, missing assets 404', async () => {
    const index = await fetch(`${s.url}/studio/documents`);
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    // (fetch adds Cache-Control: no-cache to a conditional request unless told otherwise)
    const again = await fetch(`${s.url}/studio/`, { headers: { 'if-modified-since': index.headers.get('last-modified')!, 'cache-control': 'max-age=0' } });
    assert.equal(again.status, 304);
    const csp = index.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    const html = await index.text();
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
    const asset = /src="(\/studio\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(s.url + asset);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(`${s.url}/studio/assets/nope.js`)).status, 404);
    assert.equal((await fetch(`${s.url}/studio/..%2f..%2fpackage.json`)).status, 404);
  });

  test('sign up, create an API key (shown once, works), rotate it (the old one stops)', async () => {
    await page.goto(`${s.url}/studio/`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Ada Harbour');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    assert.deepEqual(await a11yProblems(page), [], 'documents page');

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    const first = await page.getByLabel('Key', { exact: true }).inputValue();
    assert.deepEqual(await a11yProblems(page), [], 'keys page');
    assert.match(first, /^svc_[0-9a-f]{32,}$/);
    const me = await s.json('/api/user/profile', { key: first });
    assert.equal(me.status, 200);
    assert.equal(me.body.email, 'ada@example.com');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Rotate ci' }).click();
    await page.getByText('no longer works').waitFor();
    const second = await page.getByLabel('Key', { exact: true }).inputValue();
    assert.notEqual(second, first);
    assert.equal((await s.json('/api/user/profile', { key: first })).status, 401);
    assert.equal((await s.json('/api/user/profile', { key: second })).status, 200);
    adaKey = second;
  });

  test('upload a PDF with progress and live status; the document view draws the page and its boxes; a box opens its text; markdown toggle', async () => {
    await page.getByRole('link', { name: 'Documents' }).click();
    const bytes = Buffer.from(await invoicePdf(1));
    await page.getByLabel(/Upload documents/).setInputFiles({ name: 'harbour-invoice.pdf', mimeType: 'application/pdf', buffer: bytes });
    // the row appears, and turns completed by itself (polling)
    const row = page.locator('tr', { hasText: 'harbour-invoice.pdf' });
    await row.locator('[data-status="completed"], .status.completed').first().waitFor({ timeout: 60_000 });
    await row.getByRole('link', { name: 'harbour-invoice.pdf' }).click();
    documentUrl = page.url();

    const page1 = page.locator('.page[data-page="1"]');
    await page1.locator('.box').first().waitFor();
    const img = page1.locator('img');
    await img.waitFor();
    await page.waitForFunction(() => ((document.querySelector('.page[data-page="1"] img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
    const natural = await img.evaluate((i: HTMLImageElement) => ({ w: i.naturalWidth, h: i.naturalHeight }));
    assert.ok(natural.w > 500 && Math.abs(natural.h / natural.w - 792 / 612) < 0.02, `page image ${natural.w}x${natural.h}`);
    const kinds = await page1.locator('.box').evaluateAll((els) => els.map((e) => e.className));
    assert.ok(kinds.some((k) => k.includes('t-heading')), `a heading box among ${kinds.join(' | ')}`);
    assert.ok(kinds.length >= 3, 'several boxes on page 1');

    // keyboard: Tab to the heading box, Enter opens it in the inspector
    const heading = page1.locator('.box.t-heading').first();
    await heading.focus();
    await page.keyboard.press('Enter');
    await page.locator('.inspector').getByText('Harbour Supplies Ltd').first().waitFor();
    await page.locator('.inspector').getByText('100%').first().waitFor();
    // one tab stop per page; the arrow keys go from box to box
    assert.equal(await page1.locator('button.box[tabindex="0"]').count(), 1);
    await page.keyboard.press('ArrowDown');
    const next = await page.evaluate(() => (document.activeElement as HTMLElement).getAttribute('aria-label'));
    assert.match(next ?? '', /Invoice number/);
    await page.keyboard.press('Enter');
    await page.locator('.inspector').getByText('Invoice number: INV-2041').first().waitFor();
    assert.deepEqual(await a11yProblems(page), [], 'document view');
    await page.screenshot({ path: path.join(RESULTS, 'studio-document.png'), fullPage: false });

    await page.getByRole('button', { name: 'Markdown' }).click();
    await page.getByLabel('Markdown').getByText(/# Harbour Supplies Ltd/).waitFor();
    await page.getByRole('button', { name: 'JSON' }).click();
    assert.match(await page.getByLabel('JSON').textContent() ?? '', /"blocks"/);
    await page.getByRole('button', { name: 'Pages' }).click();
  });

  test('extraction: each field with its confidence; a field shows its evidence box on the page; a correction is saved', async () => {
    await page.getByRole('tab', { name: 'Extract' }).click();
    await page.getByLabel(/Fields, one per line/).fill('invoice_number: string\ntotal: number');
    const response = page.waitForResponse((r) => r.url().endsWith('/api/extract/run'));
    await page.getByRole('button', { name: 'Run extraction' }).click();
    const run = await (await response).json();
    assert.equal(run.success, true, JSON.stringify(run));
    const invoice = run.field_results.find((f: any) => f.field === 'invoice_number');
    assert.equal(invoice.value, 'INV-2041');
    assert.ok(invoice.evidence?.bbox, 'the field has evidence');

    const field = page.locator('.field[data-field="invoice_number"]');
    await field.getByRole('button', { name: 'invoice_number', exact: true }).click();
    const evidence = page.locator(`.page[data-page="${invoice.evidence.page}"] .box.evidence`);
    await evidence.waitFor();
    // the highlight sits where the service says the evidence is
    const [box, pageBox] = await Promise.all([evidence.boundingBox(), page.locator(`.page[data-page="${invoice.evidence.page}"]`).boundingBox()]);
    const scale = pageBox!.width / 612;
    assert.ok(Math.abs(box!.x - pageBox!.x - invoice.evidence.bbox.x * scale) < 4, 'evidence box x');
    assert.ok(Math.abs(box!.y - pageBox!.y - invoice.evidence.bbox.y * scale) < 4, 'evidence box y');
    await page.screenshot({ path: path.join(RESULTS, 'studio-extraction.png'), fullPage: false });
    assert.deepEqual(await a11yProblems(page), [], 'extraction panel');

    await field.getByRole('button', { name: 'Correct invoice_number' }).click();
    await field.getByLabel('Correct value of invoice_number').fill('INV-2041-A');
    await field.getByRole('button', { name: 'Save correction' }).click();
    await field.getByText('corrected').waitFor();
    const stored = await page.evaluate(async (id) => (await fetch(`/api/extract/results/${id}`)).json(), run.extraction_id);
    assert.equal(stored.extraction.corrections.find((c: any) => (c.field ?? c.field_id) === 'invoice_number')?.corrected_value ?? stored.extraction.data.invoice_number, 'INV-2041-A');
  });

  test('knowledge base: add the document, chat, and a citation opens the cited page with its chunk', async () => {
    await page.getByRole('link', { name: 'Knowledge bases' }).click();
    await page.getByLabel('New knowledge base').fill('Suppliers');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: 'Suppliers' }).click();
    await page.getByLabel('Add a document').selectOption({ label: 'harbour-invoice.pdf' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.locator('.kbdocs').getByText('harbour-invoice.pdf').waitFor();
    await page.getByLabel('Ask a question').fill('Who is the customer?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.locator('.turn.assistant').last();
    await answer.waitFor();
    assert.match((await answer.locator('p').first().textContent()) ?? '', /Northwind Traders/);
    await page.screenshot({ path: path.join(RESULTS, 'studio-chat.png'), fullPage: false });
    assert.deepEqual(await a11yProblems(page), [], 'knowledge base page');
    const citation = answer.getByRole('link', { name: /harbour-invoice\.pdf, page 1/ }).first();
    await citation.click();
    await page.locator('.page[data-page="1"] .box.t-chunk.selected').first().waitFor();
    assert.match((await page.locator('.inspector h2').textContent()) ?? '', /chunk/i);
    assert.match((await page.locator('.inspector .text').first().textContent()) ?? '', /Northwind Traders/);
  });

  test('a parse\'s studio_link opens the document view without a session', async () => {
    const docId = /documents\/([0-9a-f-]{36})/.exec(documentUrl)![1]!;
    const key = adaKey;
    const parsed = await s.json('/api/parse', { method: 'POST', json: { input: `svc://${docId}` }, key });
    assert.equal(parsed.status, 200, JSON.stringify(parsed.body));
    const other = await browser.newContext();
    const p = await other.newPage();
    p.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${m.text()} (shared view)`);
    });
    await p.goto(parsed.body.studio_link);
    assert.match(p.url(), /\/studio\/shared\//);
    await p.locator('.page[data-page="1"] .box.t-heading').first().waitFor();
    await p.waitForFunction(() => ((document.querySelector('.page[data-page="1"] img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
    await p.getByRole('button', { name: 'Markdown' }).click();
    await p.getByLabel('Markdown').getByText(/# Harbour Supplies Ltd/).waitFor();
    await other.close();
  });

  test('a 100-page PDF: the view opens with only the first pages drawn; scrolling draws the rest', async () => {
    const key = adaKey;
    const up = await s.json('/api/upload', { method: 'POST', body: uploadForm('long.pdf', await invoicePdf(99)), key });
    const id = up.body.document.id;
    const done = await waitForStatus(s, `/v1/documents/${id}`, 60_000, key);
    assert.equal(done.status, 'completed');
    const images: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (/\/pages\/\d+\/image/.test(r.url())) images.push(r.url());
    };
    page.on('request', onRequest);
    await page.goto(`${s.url}/studio/documents/${id}`);
    await page.locator('.page[data-page="1"] .box').first().waitFor();
    assert.equal(await page.locator('.page').count(), 100);
    const drawn = await page.locator('.page[data-loaded="true"]').count();
    assert.ok(drawn >= 1 && drawn <= 6, `${drawn} pages drawn at first`);
    assert.ok(images.length <= 6, `${images.length} page images requested at first`);
    await page.locator('#page-100').scrollIntoViewIfNeeded();
    await page.locator('.page[data-page="100"] .box').first().waitFor();
    assert.ok((await page.locator('.page[data-loaded="true"]').count()) < 100, 'pages scrolled past quickly are not all drawn');
    page.off('request', onRequest);
  });

  test('webhooks: add one (secret shown once), send a test event, see it in the delivery log', async () => {
    const receiver = await startReceiver();
    try {
      await page.goto(`${s.url}/studio/settings/webhooks`);
      await page.getByLabel('Endpoint URL').fill(`${receiver.base}/hook`);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secret = await page.getByLabel('Secret', { exact: true }).inputValue();
      assert.ok(secret.length >= 32, 'the signing secret is shown');
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText(/Test event delivered \(HTTP 200\)/).waitFor();
      const row = page.locator('.deliveries tr[data-status="delivered"]').first();
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /webhook\.test.*delivered.*1\/\d+.*200/);
      assert.equal(receiver.hits('/hook').length, 1);
      assert.ok(receiver.hits('/hook')[0]!.headers['x-svc-signature'], 'signed');
      assert.deepEqual(await a11yProblems(page), [], 'webhooks page');
    } finally {
      await receiver.close();
    }
  });

  test('workflows: one from a template, run on the invoice, its execution followed step by step', async () => {
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.getByLabel('New workflow from a template').selectOption({ label: 'Invoice intake' });
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByLabel('Document for Invoice intake').selectOption({ label: 'harbour-invoice.pdf' });
    await page.getByRole('button', { name: 'Run now' }).click();
    const done = page.locator('.executions > li[data-status="completed"]').first();
    await done.waitFor({ timeout: 30_000 });
    const steps = await done.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).slice(0, 2).map((td) => td.textContent)));
    assert.deepEqual(steps, [['parse', 'completed'], ['extract', 'completed'], ['summary (transform)', 'completed']]);
    // each step's output is in the log: the parse names the document, the extraction carries its data
    await done.locator('tbody tr').nth(1).locator('summary').click();
    const extracted = done.getByLabel('Output of extract');
    await extracted.waitFor();
    assert.match((await extracted.textContent()) ?? '', /"overall_confidence"/);
    assert.match((await done.getByLabel('Output of parse').textContent()) ?? '', /harbour-invoice\.pdf/);
    assert.deepEqual(await a11yProblems(page), [], 'workflows page');
  });

  test('sign out: the session ends, the app asks to sign in again', async () => {
    await page.goto(`${s.url}/studio/documents`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${s.url}/studio/settings/keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // back where the sign-in was asked for
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  test('no console errors in any of it', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
