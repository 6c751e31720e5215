import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import type { APIRequestContext, Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer, until } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { CHROMIUM_SKIP as skip, RESULTS, a11yProblems, applicationFormPdf, joinedPdf, openStudioBrowser } from '../helpers/studio.js';

/**
 * The studio's settings, split and edit views in a real browser: organizations with members and roles
 * (what a role may not do is disabled), credits and usage charts with their tables and the CSV export, the
 * privacy page (consents, a data export downloaded, an account deletion scheduled and cancelled), the Split
 * tab (suggested sections over page images, the split, links to the new documents) and the Edit tab (fields
 * detected and drawn on the page, filled, verified, the filled file read back, a project). Labels and
 * contrast on every page, no console errors; screenshots in test-results/.
 */

const PASSWORD = 'Harbour-Light7!';

/** Calls of the API as the user signed in in a browser context (its session cookie and CSRF token). */
async function asUser(context: BrowserContext, base: string) {
  const csrf = (await context.cookies(base)).find((c) => c.name === 'quire_csrf')?.value ?? '';
  const req: APIRequestContext = context.request;
  return {
    get: async (p: string) => {
      const r = await req.get(base + p);
      return { status: r.status(), body: await r.json().catch(() => null) };
    },
    upload: async (name: string, bytes: Uint8Array) => {
      const r = await req.post(`${base}/api/upload`, { headers: { 'x-csrf-token': csrf }, multipart: { file: { name, mimeType: 'application/pdf', buffer: Buffer.from(bytes) } } });
      assert.equal(r.status(), 200, await r.text());
      return (await r.json()).document.id as string;
    },
  };
}

describe('studio settings, split and edit in a browser', { skip }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: Awaited<ReturnType<typeof asUser>>;
  let consoleErrors: string[] = [];
  let splitId = '';
  let formId = '';

  /** Another user's page: its console errors are collected too, its confirmations accepted. */
  const watch = (p: Page, who: string) => {
    p.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${who}: ${m.text()} (${m.location().url})`);
    });
    p.on('pageerror', (e) => consoleErrors.push(`${who}: page error: ${e.message}`));
    // the confirmations (remove, transfer, delete the account) are accepted
    p.on('dialog', (d) => void d.accept());
  };

  before(async () => {
    s = await startTestServer();
    ({ browser, context, page, consoleErrors } = await openStudioBrowser());
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${s.url}/studio/signup`);
    await page.getByLabel('Name').fill('Ada Harbour');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    user = await asUser(context, s.url);
    // the documents of the split and edit tests, processed while the settings are tested
    splitId = await user.upload('joined.pdf', await joinedPdf());
    formId = await user.upload('application.pdf', await applicationFormPdf());
    // a second account, to be added to an organization
    const bob = await s.json('/api/auth/signup', { method: 'POST', json: { email: 'bob@example.com', password: PASSWORD, name: 'Bob Quay' }, key: null });
    assert.equal(bob.status, 202, JSON.stringify(bob.body));
  });

  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('organizations: create one (slug unique), add a member, change the role; the roles limit what the page offers; transfer ownership', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Organizations' }).click();
    await page.getByLabel('Organization name').fill('Harbour Legal');
    assert.equal(await page.getByLabel('Slug').inputValue(), 'harbour-legal', 'the slug follows the name');
    await page.getByRole('button', { name: 'Create organization' }).click();
    const detail = page.getByRole('region', { name: 'Organization Harbour Legal' });
    await detail.getByText('you are an owner').waitFor();
    assert.match((await page.locator('tr[data-org="harbour-legal"]').textContent()) ?? '', /owner/);
    // the only owner cannot leave, nor change or remove themself
    assert.equal(await detail.getByRole('button', { name: 'Leave Harbour Legal' }).isDisabled(), true);
    assert.equal(await detail.getByRole('button', { name: 'Remove ada@example.com' }).isDisabled(), true);

    // the same slug again is refused
    await page.getByLabel('Organization name').fill('Harbour Legal');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await page.getByRole('alert').filter({ hasText: /slug|taken|exists/i }).first().waitFor();
    assert.equal(await page.locator('tr[data-org]').count(), 1);

    await detail.getByLabel('Email or user id').fill('bob@example.com');
    await detail.getByLabel('Role of the new member').selectOption('member');
    await detail.getByRole('button', { name: 'Invite member' }).click();
    await detail.getByText('Invitation sent to bob@example.com as member: they join once they accept it.').waitFor();
    // Bob joins once he accepts (here through the API with his session)
    const bobIn = await s.json('/api/auth/login', { method: 'POST', json: { email: 'bob@example.com', password: PASSWORD }, key: null });
    const bobAuth = { cookie: bobIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '), 'x-csrf-token': bobIn.body.csrf_token };
    const [invitation] = (await s.json('/api/user/invitations', { headers: bobAuth, key: null })).body.invitations;
    assert.equal((await s.json(`/api/user/invitations/${invitation.id}/accept`, { method: 'POST', headers: bobAuth, key: null })).status, 200);
    await page.reload();
    await page.getByRole('button', { name: 'Manage Harbour Legal' }).click();
    await detail.getByLabel('Role of bob@example.com').selectOption('admin');
    await detail.getByText('bob@example.com is now admin.').waitFor();
    const orgs = (await user.get('/api/organizations')).body.organizations;
    const org = orgs.find((o: any) => o.slug === 'harbour-legal');
    const members = (await user.get(`/api/organizations/${org.id}/members`)).body.members;
    assert.deepEqual(members.map((m: any) => [m.email, m.role]).sort(), [['ada@example.com', 'owner'], ['bob@example.com', 'admin']]);
    assert.deepEqual(await a11yProblems(page), [], 'organizations page');
    await page.screenshot({ path: path.join(RESULTS, 'studio-organizations.png'), fullPage: true });

    // Bob, an admin, manages members but not the owner, and cannot transfer ownership
    const bobContext = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    try {
      const bp = await bobContext.newPage();
      bp.setDefaultTimeout(20_000);
      watch(bp, 'bob');
      await bp.goto(`${s.url}/studio/settings/organizations`);
      await bp.getByLabel('Email').fill('bob@example.com');
      await bp.getByLabel('Password').fill(PASSWORD);
      await bp.getByRole('button', { name: 'Sign in' }).click();
      await bp.getByRole('button', { name: 'Manage Harbour Legal' }).click();
      const bd = bp.getByRole('region', { name: 'Organization Harbour Legal' });
      await bd.getByText('you are an admin').waitFor();
      await bd.getByRole('row', { name: /ada@example\.com/ }).waitFor();
      assert.equal(await bd.getByRole('button', { name: 'Invite member' }).isEnabled(), true);
      assert.equal(await bd.getByLabel('Role of ada@example.com').isDisabled(), true, 'an admin cannot change the owner');
      assert.equal(await bd.getByRole('button', { name: 'Remove ada@example.com' }).isDisabled(), true, 'an admin cannot remove the owner');
      assert.equal(await bd.getByRole('button', { name: 'Transfer ownership' }).count(), 0);
      assert.equal(await bd.getByLabel('Role of the new member').locator('option[value="owner"]').isDisabled(), true, 'an admin cannot grant owner');
      assert.equal(await bd.getByRole('button', { name: 'Save settings' }).isEnabled(), true);
    } finally {
      await bobContext.close();
    }

    await detail.getByLabel('Transfer ownership to').selectOption({ label: 'bob@example.com' });
    await detail.getByRole('button', { name: 'Transfer ownership' }).click();
    await detail.getByText('bob@example.com is the owner now; you are an admin.').waitFor();
    await detail.getByRole('heading', { name: /you are an admin/ }).waitFor();
    assert.equal(await detail.getByRole('button', { name: 'Leave Harbour Legal' }).isEnabled(), true);
  });

  test('credits and usage: this month, by operation, daily charts with a text alternative and a table, CSV export', async () => {
    // the two uploads are charged once processed
    const credits = await until('documents charged', async () => {
      const c = (await user.get('/api/user/credits')).body;
      return c.usage_summary.parse > 0 && c.credits_held === 0 ? c : null;
    });
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Credits and usage' }).click();
    await page.getByRole('heading', { name: 'Credits and usage' }).waitFor();
    assert.equal(await page.locator('[data-figure="used"]').textContent(), credits.credits_used.toLocaleString('en-US', { maximumFractionDigits: 2 }));
    assert.equal(await page.locator('[data-figure="allocation"]').textContent(), credits.total_allocation.toLocaleString('en-US', { maximumFractionDigits: 2 }));
    assert.match((await page.locator('tr[data-operation="parse"]').textContent()) ?? '', new RegExp(`parse${credits.usage_summary.parse}`));

    const chart = page.locator('[data-chart="chart-pages_processed"]');
    const svg = chart.getByRole('img', { name: /Pages processed per day/ });
    await svg.waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const series = (await user.get('/api/analytics/query?period=30d&aggregation=daily&metrics=pages_processed')).body.data;
    assert.ok(series.length >= 30, `${series.length} daily buckets`);
    const pages = series.reduce((n: number, r: any) => n + r.pages_processed, 0);
    assert.equal(pages, 4, 'three pages and one');
    assert.match((await chart.locator('desc').textContent()) ?? '', /4 pages in all/);
    assert.equal(await chart.locator('rect.bar').count(), series.length);
    await chart.getByText('Show as a table').click();
    const todayRow = chart.locator('tbody tr', { hasText: today });
    assert.deepEqual(await todayRow.locator('td').allTextContents(), [today, '4']);

    const href = await page.getByRole('link', { name: 'Export the last 30 days (CSV)' }).getAttribute('href');
    const csv = await context.request.get(s.url + href!);
    assert.equal(csv.status(), 200);
    assert.match(csv.headers()['content-type'] ?? '', /text\/csv/);
    const lines = (await csv.text()).trim().split(/\r?\n/);
    assert.match(lines[0]!, /^date,/);
    assert.match(lines.at(-1)!, /^total,/);
    assert.deepEqual(await a11yProblems(page), [], 'usage page');
    await page.screenshot({ path: path.join(RESULTS, 'studio-usage.png'), fullPage: true });
    // the organization's balance instead: its documents are billed to it, Ada's are her own
    const org = (await user.get('/api/organizations')).body.organizations[0];
    const orgCredits = (await user.get(`/api/user/credits?organization_id=${org.id}`)).body;
    assert.equal(orgCredits.credits_used, 0);
    await page.getByLabel('Credits of').selectOption({ label: 'Harbour Legal (organization)' });
    await page.getByText("The organization's balance").waitFor();
    await page.waitForFunction(() => document.querySelector('[data-figure="used"]')?.textContent === '0');
    assert.equal(await page.locator('[data-figure="remaining"]').textContent(), orgCredits.credits_remaining.toLocaleString('en-US', { maximumFractionDigits: 2 }));
  });

  test('privacy: a consent changed, a data export requested and downloaded, an account deletion scheduled and cancelled', async () => {
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Privacy' }).click();
    const marketing = page.getByLabel(/News about the service/);
    await marketing.check();
    await page.getByText(/News about the service.*given/).waitFor();
    assert.equal((await user.get('/api/gdpr/consent')).body.consents.marketing.granted, true);
    assert.equal(await page.getByLabel(/Terms of service/).isDisabled(), true);

    await page.getByRole('button', { name: 'Request an export' }).click();
    const download = page.getByRole('link', { name: 'Download the export' });
    await download.waitFor({ timeout: 30_000 });
    const zip = await context.request.get((await download.getAttribute('href'))!);
    assert.equal(zip.status(), 200);
    const bytes = await zip.body();
    assert.equal(bytes.subarray(0, 2).toString(), 'PK', 'a zip');
    assert.ok(bytes.includes(Buffer.from('profile.json')), 'with the profile');

    await page.getByLabel('Reason (optional)').fill('testing the studio');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByText(/Your account will be deleted on/).waitFor();
    assert.equal((await user.get('/api/gdpr/delete-account')).body.status, 'scheduled');
    assert.deepEqual(await a11yProblems(page), [], 'privacy page');
    await page.screenshot({ path: path.join(RESULTS, 'studio-privacy.png'), fullPage: true });
    await page.getByRole('button', { name: 'Cancel the deletion' }).click();
    await page.getByText('Your last deletion request was cancelled.').waitFor();
    assert.equal((await user.get('/api/gdpr/delete-account')).body.status, 'cancelled');
  });

  test('split: suggested sections with confidence and reason over page images; the split makes documents linked from the sections', async () => {
    await until('the joined PDF processed', async () => (await user.get(`/v1/documents/${splitId}`)).body.status === 'completed');
    await page.goto(`${s.url}/studio/documents/${splitId}`);
    await page.getByRole('tab', { name: 'Split' }).click();
    await page.getByText('Not split yet.').waitFor();
    const analyzed = page.waitForResponse((r) => r.url().endsWith('/api/split/analyze'));
    await page.getByRole('button', { name: 'Suggest sections' }).click();
    const suggested = (await (await analyzed).json()).suggested_sections as { name: string; page_start: number; page_end: number; confidence: number; reason: string }[];
    assert.deepEqual(suggested.map((x) => [x.page_start, x.page_end]), [[1, 1], [2, 3]], 'the invoice and the report');
    const items = page.getByRole('list', { name: 'Suggested sections' }).getByRole('listitem');
    assert.equal(await items.count(), 2);
    for (const [i, x] of suggested.entries()) {
      const text = (await items.nth(i).textContent()) ?? '';
      assert.equal(await items.nth(i).getByLabel(`Name of section ${i + 1}`).inputValue(), x.name);
      assert.ok(text.includes(x.reason) && text.includes(`${Math.round(x.confidence * 100)}%`), text);
    }
    // the report's two pages are shown as page images
    const thumbs = items.nth(1).locator('img');
    assert.deepEqual(await thumbs.evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt'))), ['Page 2', 'Page 3']);
    await page.waitForFunction(() => Array.from(document.querySelectorAll('.thumbs img')).every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0));
    assert.deepEqual(await a11yProblems(page), [], 'split tab');
    await page.screenshot({ path: path.join(RESULTS, 'studio-split.png'), fullPage: false });

    await items.nth(1).getByLabel('Name of section 2').fill('Safety report Q3');
    await page.getByRole('button', { name: 'Split into 2 documents' }).click();
    const made = page.getByRole('list', { name: 'Sections of this document' }).getByRole('listitem');
    await made.nth(1).waitFor({ timeout: 60_000 });
    const sections = (await user.get(`/api/documents/${splitId}/sections`)).body.sections;
    assert.deepEqual(sections.map((x: any) => [x.pageStart, x.pageEnd]), [[1, 1], [2, 3]]);
    assert.equal(sections[1].sectionName, 'Safety report Q3', 'the name given on the page');
    assert.equal(sections[0].sectionName, suggested[0]!.name);
    const link = made.nth(1).getByRole('link', { name: 'Safety report Q3' });
    assert.equal(await link.getAttribute('href'), `/studio/documents/${sections[1].childDocumentId}`);
    // and the section's file, to download
    const download = made.nth(1).getByRole('link', { name: /^Download / });
    assert.equal(await download.getAttribute('href'), `/v1/documents/${sections[1].childDocumentId}/file`);
    await link.click();
    // the report's own document: two pages, its first is the report's title page
    await page.locator('.page[data-page="2"]').waitFor();
    assert.equal(await page.locator('.page').count(), 2);
    await page.getByRole('button', { name: 'Markdown' }).click();
    await page.getByLabel('Markdown').getByText(/Quarterly Safety Report/).waitFor();
  });

  test('edit: fields detected and drawn on the page, filled in the side form, verified; the filled file holds the values; a project', async () => {
    await until('the form processed', async () => (await user.get(`/v1/documents/${formId}`)).body.status === 'completed');
    await page.goto(`${s.url}/studio/documents/${formId}`);
    await page.getByRole('tab', { name: 'Edit' }).click();
    const detected = page.waitForResponse((r) => r.url().endsWith('/api/edit/detect'));
    await page.getByRole('button', { name: 'Detect fields' }).click();
    const elements = (await (await detected).json()).elements as { id: string; label: string; type: string; bbox: { x: number; y: number } }[];
    assert.deepEqual(elements.map((e) => e.id).sort(), ['applicant.city', 'applicant.name', 'applicant.newsletter']);
    const boxes = page.locator('.page[data-page="1"] .box.t-field');
    await boxes.first().waitFor();
    assert.equal(await boxes.count(), 3);
    // each box sits where the service found its field
    const pageBox = (await page.locator('.page[data-page="1"]').boundingBox())!;
    const scale = pageBox.width / 612;
    for (const e of elements) {
      const b = (await page.locator(`.box.t-field[data-element="${e.id}"]`).boundingBox())!;
      assert.ok(Math.abs(b.x - pageBox.x - e.bbox.x * scale) < 4 && Math.abs(b.y - pageBox.y - e.bbox.y * scale) < 4, `box of ${e.id}`);
    }
    // a box picked on the page puts the cursor in its input
    await page.locator('.box.t-field[data-element="applicant.city"]').click();
    await page.waitForFunction(() => document.activeElement?.id === 'edit-el-applicant_city');
    await page.keyboard.type('Lisbon');
    const name = elements.find((e) => e.id === 'applicant.name')!;
    await page.locator('.editfield[data-element="applicant.name"] input').fill('Ada Harbour');
    await page.locator('.editfield[data-element="applicant.newsletter"] input[type="checkbox"]').check();
    assert.match(name.label, /Full name/);
    assert.deepEqual(await a11yProblems(page), [], 'edit tab');

    const ran = page.waitForResponse((r) => r.url().endsWith('/api/edit/run'));
    await page.getByRole('button', { name: 'Fill and verify' }).click();
    const run = await (await ran).json();
    assert.equal(run.verification_result.pass, true, JSON.stringify(run.verification_result));
    const verdict = page.locator('.verification[data-pass="true"]');
    await verdict.getByRole('heading', { name: 'Verification passed' }).waitFor();
    assert.match((await verdict.textContent()) ?? '', /3 fields filled; 3 read back/);
    await page.screenshot({ path: path.join(RESULTS, 'studio-edit.png'), fullPage: false });
    const out = await context.request.get((await verdict.getByRole('link', { name: 'Open the filled file' }).getAttribute('href'))!);
    assert.equal(out.status(), 200);
    const form = (await PDFDocument.load(await out.body())).getForm();
    assert.equal(form.getTextField('applicant.name').getText(), 'Ada Harbour');
    assert.equal(form.getTextField('applicant.city').getText(), 'Lisbon');
    assert.equal(form.getCheckBox('applicant.newsletter').isChecked(), true);

    await verdict.getByRole('button', { name: 'Save as project' }).click();
    await verdict.getByRole('link', { name: 'application.pdf' }).click();
    const project = page.locator('li[data-project="application.pdf"]');
    await project.waitFor();
    await project.getByRole('button', { name: 'Run application.pdf again' }).click();
    const row = project.locator('tbody tr').first();
    await row.waitFor({ timeout: 30_000 });
    assert.deepEqual((await row.locator('td').allTextContents()).slice(0, 4), ['1', 'completed', '3', 'passed']);
    assert.deepEqual(await a11yProblems(page), [], 'edit projects page');
  });

  test('no console errors in any of it', () => {
    // the browser logs every refused request: the one the test provoked (the slug taken, shown on the page) is expected
    const provoked = /status of 409 \(Conflict\) \(http:\/\/[^/]+\/api\/organizations\)$/;
    assert.equal(consoleErrors.filter((e) => provoked.test(e)).length, 1, 'the taken slug');
    assert.deepEqual(consoleErrors.filter((e) => !provoked.test(e)), []);
  });
});
