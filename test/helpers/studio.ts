import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { reapWithThisProcess } from '@quire/core';

/** An invoice-like page (labelled values, a heading, lines) and, after it, `extra` plain pages. */
export async function invoicePdf(extra = 0): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const first = pdf.addPage([612, 792]);
  first.drawText('Harbour Supplies Ltd', { x: 72, y: 720, size: 22, font: bold });
  const lines = ['Invoice number: INV-2041', 'Invoice date: 2026-03-14', 'Customer: Northwind Traders', '', 'Rope, 40 m coil            2 x 35.00', 'Lantern, brass              1 x 89.50', '', 'Total: 159.50'];
  lines.forEach((l, i) => first.drawText(l, { x: 72, y: 670 - i * 20, size: 12, font }));
  for (let i = 0; i < extra; i++) {
    const p = pdf.addPage([612, 792]);
    p.drawText(`Appendix page ${i + 2}`, { x: 72, y: 720, size: 18, font: bold });
    p.drawText(`Notes on the delivery schedule, part ${i + 1}.`, { x: 72, y: 680, size: 12, font });
    p.drawRectangle({ x: 72, y: 640, width: 200, height: 12, color: rgb(0.8, 0.1, 0.1) });
  }
  return pdf.save();
}

/** Two documents in one PDF: a one-page invoice (Letter, Helvetica), then a two-page report (A4, Courier, "Page n of 2"). */
export async function joinedPdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const helv = await pdf.embedFont(StandardFonts.Helvetica);
  const helvBold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const courier = await pdf.embedFont(StandardFonts.Courier);
  const courierBold = await pdf.embedFont(StandardFonts.CourierBold);
  const inv = pdf.addPage([612, 792]);
  inv.drawText('INVOICE', { x: 400, y: 735, size: 22, font: helvBold });
  ['Harbour Supplies Ltd', 'Invoice Number: INV-2041', 'Invoice Date: 2026-03-14', 'Bill To: Northwind Traders', '', 'Rope, 40 m coil            2 x 35.00', 'Lantern, brass              1 x 89.50', '', 'Total Amount Due: 159.50'].forEach((l, i) => inv.drawText(l, { x: 72, y: 690 - i * 16, size: 11, font: helv }));
  for (let n = 1; n <= 2; n++) {
    const p = pdf.addPage([595, 842]);
    if (n === 1) p.drawText('Quarterly Safety Report', { x: 60, y: 780, size: 18, font: courierBold });
    const body = n === 1 ? ['Warehouse inspections recorded two minor incidents', 'in the loading bay during July.', 'Forklift drivers completed refresher training.'] : ['The racking was re-certified in August.', 'No further incidents were reported.', 'Next inspection: November.'];
    body.forEach((l, i) => p.drawText(l, { x: 60, y: 730 - i * 16, size: 10, font: courier }));
    p.drawText(`Page ${n} of 2`, { x: 270, y: 40, size: 8, font: courier });
  }
  return pdf.save();
}

/** A small application form with AcroForm fields: printed labels left of two text fields, a checkbox with its caption. */
export async function applicationFormPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Membership application', { x: 50, y: 740, size: 16, font });
  const form = doc.getForm();
  for (const [label, name, y] of [['Full name:', 'applicant.name', 690], ['City:', 'applicant.city', 655]] as const) {
    page.drawText(label, { x: 50, y: y + 5, size: 11, font });
    form.createTextField(name).addToPage(page, { x: 150, y, width: 240, height: 20, font });
  }
  page.drawText('Send me the newsletter', { x: 75, y: 624, size: 11, font });
  form.createCheckBox('applicant.newsletter').addToPage(page, { x: 50, y: 620, width: 15, height: 15 });
  form.updateFieldAppearances(font);
  return doc.save();
}

// ---- the browser tests of the studio (studio.test.ts, studio-settings.test.ts)

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CHROMIUM = process.env.QUIRE_CHROMIUM_PATH ?? '/usr/bin/chromium';
const STUDIO = path.join(ROOT, 'server/dist/studio');

/** Why the browser tests are skipped (no chromium), or false. */
export const CHROMIUM_SKIP: string | false = !fs.existsSync(CHROMIUM) ? `no chromium at ${CHROMIUM} (scripts/install-system-deps.sh installs it; QUIRE_CHROMIUM_PATH names another)` : false;

/** The built app, rebuilt when a source file is newer than the build (tests run on the sources). */
export function ensureStudioBuilt(): void {
  const index = path.join(STUDIO, 'index.html');
  const built = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  const src = path.join(ROOT, 'server/studio');
  const newest = (fs.readdirSync(src, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((d) => d.isFile()).reduce((m, d) => Math.max(m, fs.statSync(path.join(d.parentPath, d.name)).mtimeMs), 0);
  if (built > newest) return;
  const r = spawnSync('npm', ['run', 'build:studio', '-w', '@quire/server'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, `studio build failed: ${r.stdout}\n${r.stderr}`);
}

export const RESULTS = path.join(ROOT, 'test-results');

/** Child processes of this process whose command line names Chromium. */
export function chromiumChildren(): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && /chrom/i.test(fs.readFileSync(`/proc/${d}/cmdline`, 'utf8'))) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Chromium through playwright (headless). Playwright starts it in a process group of its own and kills it
 * from its exit handler, which does not run when this process is killed (a test file's time limit, SIGKILL):
 * a reaper (reapWithThisProcess) then kills the group, so no browser outlives the test file that started it.
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const before = new Set(chromiumChildren());
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  const reapers = chromiumChildren().filter((pid) => !before.has(pid)).map((pid) => reapWithThisProcess(pid));
  browser.on('disconnected', () => {
    for (const r of reapers) r.release();
  });
  return browser;
}

/**
 * The studio built, test-results/ there, and chromium started with a context and a page (1400×1000) whose
 * console errors and page errors are collected in `consoleErrors`.
 */
export async function openStudioBrowser(): Promise<{ browser: Browser; context: BrowserContext; page: Page; consoleErrors: string[] }> {
  ensureStudioBuilt();
  fs.mkdirSync(RESULTS, { recursive: true });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`page error: ${e.message}`));
  return { browser, context, page, consoleErrors };
}

/**
 * Accessibility basics of what the page shows: every form control and button has a name (label, aria-label
 * or text), and text has WCAG AA contrast against the first opaque background behind it (4.5:1, large
 * text 3:1).
 */
export async function a11yProblems(page: Page): Promise<string[]> {
  return page.evaluate(A11Y_CHECK) as Promise<string[]>;
}

/** Plain JavaScript (tsx would add helpers to a function the browser does not have). */
const A11Y_CHECK = String.raw`(() => {
  const out = [];
  for (const e of document.querySelectorAll('input:not([type=hidden]), select, textarea, button')) {
    const name = e.getAttribute('aria-label') || (e.labels ? Array.from(e.labels).map((l) => l.textContent || '').join('').trim() : '') || (e.tagName === 'BUTTON' ? (e.textContent || '').trim() : '');
    if (!name) out.push('no name: ' + e.outerHTML.slice(0, 100));
  }
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { rgb: p.slice(0, 3), a: p.length > 3 ? p[3] : 1 };
  };
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a >= 0.99) return c.rgb;
    }
    return [255, 255, 255];
  };
  for (const el of document.querySelectorAll('body *')) {
    if (!Array.from(el.childNodes).some((n) => n.nodeType === 3 && (n.textContent || '').trim())) continue;
    const st = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (st.visibility === 'hidden' || !r.width || !r.height || el.closest('.sr-only')) continue;
    const l1 = lum(parse(st.color).rgb), l2 = lum(background(el));
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(st.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(st.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) out.push('contrast ' + ratio.toFixed(2) + ': ' + el.tagName.toLowerCase() + '.' + el.className + ' "' + (el.textContent || '').trim().slice(0, 40) + '"');
  }
  return out;
})()`;
