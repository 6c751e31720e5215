/**
 * The pdf writer: the html of the generated-document model (@quire/core renderGeneratedHtml, the same page
 * the html writer gives, print CSS included) printed by Chromium through puppeteer-core.
 *
 * One browser per process, started at the first pdf and reused (starting Chromium costs far more than a
 * page); a small pool of pages bounds how many pdfs print at once and how much memory they take; every
 * print has a time limit, and a page that ran out of time is closed rather than reused. A browser that
 * crashed is started again at the next pdf. The page gets no network and no JavaScript: the html is
 * self-contained, so nothing in a document can make the browser fetch or run anything.
 * Without the Chromium binary, pdf generation fails with SERVICE_UNAVAILABLE naming it, and /readyz says so.
 */
import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Browser, Page } from 'puppeteer-core';
import { definePlugin, errors, reapWithThisProcess, renderGeneratedHtml, z } from '@quire/core';
import type { GeneratedDocumentModel, GeneratorPlugin, Logger } from '@quire/core';

export const PDF_GENERATOR_OPTIONS = z.strictObject({
  /** the Chromium binary (QUIRE_CHROMIUM_PATH) */
  chromium: z.string().min(1).default('/usr/bin/chromium'),
  /** pages printing at once (the pool); further pdfs wait for a free page */
  pages: z.number().int().min(1).max(16).default(2),
  /** time limit of one pdf (loading the html and printing it), ms */
  timeoutMs: z.number().int().min(1000).max(600_000).default(60_000),
  /** pdfs one page prints before it is closed and a fresh one (a fresh renderer) takes its place */
  pageUses: z.number().int().min(1).max(10_000).default(20),
});
export type PdfGeneratorOptions = z.infer<typeof PDF_GENERATOR_OPTIONS>;

const LAUNCH_ARGS = ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--disable-background-networking', '--disable-sync', '--mute-audio', '--font-render-hinting=none'];

export class PdfGenerator implements GeneratorPlugin {
  readonly formats = ['pdf'];
  private browser: Promise<Browser> | null = null;
  private readonly idle: Page[] = [];
  private readonly uses = new WeakMap<Page, number>();
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;
  /** how many browsers this instance started (one, unless one crashed) */
  launches = 0;

  constructor(private readonly o: PdfGeneratorOptions, private readonly logger?: Logger) {}

  /** Whether the Chromium binary is there and executable. */
  async missing(): Promise<string | null> {
    try {
      await access(this.o.chromium, fsConstants.X_OK);
      return null;
    } catch {
      return `PDF generation needs Chromium, which was not found at ${this.o.chromium} (set QUIRE_CHROMIUM_PATH, or install the chromium package with scripts/install-system-deps.sh)`;
    }
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    const missing = await this.missing();
    return missing ? { ok: false, message: missing } : { ok: true, message: `chromium at ${this.o.chromium}` };
  }

  /**
   * The host's shutdown closes the browser (close()); puppeteer still kills it if the process exits without
   * one. If the process is killed (SIGKILL, a crash), a reaper kills the browser's process group.
   */
  private launch(): Promise<Browser> {
    if (this.browser) return this.browser;
    this.launches++;
    // puppeteer-core is loaded at the first pdf, not with the plugin: most processes never print one, and
    // loading it costs every start (server, worker, runner) about 0.4 s of CPU
    const started = import('puppeteer-core').then(({ default: puppeteer }) => puppeteer.launch({ executablePath: this.o.chromium, headless: true, args: LAUNCH_ARGS, timeout: this.o.timeoutMs, protocolTimeout: this.o.timeoutMs * 2, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false })).then((b) => {
      const proc = b.process();
      if (proc?.pid) {
        const reaper = reapWithThisProcess(proc.pid);
        if (proc.exitCode !== null || proc.signalCode !== null) reaper.release();
        else proc.once('exit', () => reaper.release());
      }
      b.once('disconnected', () => {
        // a crashed or killed browser: its pages are gone, the next pdf starts another
        if (this.browser === started) this.browser = null;
        this.idle.length = 0;
        if (!this.closed) this.logger?.warn({}, 'chromium disconnected; it is started again at the next pdf');
      });
      return b;
    });
    this.browser = started;
    started.catch(() => {
      if (this.browser === started) this.browser = null;
    });
    return started;
  }

  /** A page of the pool (waits while `pages` pdfs are printing). */
  private async acquire(signal?: AbortSignal): Promise<Page> {
    while (this.busy >= this.o.pages) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      signal?.throwIfAborted();
    }
    this.busy++;
    try {
      const reused = this.idle.pop();
      if (reused && !reused.isClosed()) return reused;
      const page = await (await this.launch()).newPage();
      await page.setJavaScriptEnabled(false);
      await page.setRequestInterception(true);
      // self-contained html: the document itself is the only thing a page may load
      page.on('request', (req) => void (req.url().startsWith('data:') || req.url() === 'about:blank' ? req.continue() : req.abort('blockedbyclient')).catch(() => {}));
      return page;
    } catch (e) {
      this.release(null);
      throw e;
    }
  }

  private release(page: Page | null): void {
    this.busy--;
    const used = page ? (this.uses.get(page) ?? 0) + 1 : 0;
    if (page) this.uses.set(page, used);
    // a page is reused for a while: what its renderer keeps from earlier documents is dropped with it
    if (page && !page.isClosed() && !this.closed && this.idle.length < this.o.pages && used < this.o.pageUses) this.idle.push(page);
    else if (page) void page.close().catch(() => {});
    this.waiting.shift()?.();
  }

  async generate({ format, document, signal }: { format: string; document: GeneratedDocumentModel; signal?: AbortSignal }) {
    if (format !== 'pdf') throw errors.validation(`generator pdf writes pdf, not ${format}`);
    const missing = await this.missing();
    if (missing) throw errors.unavailable(missing, { binary: this.o.chromium });
    if (this.closed) throw errors.unavailable('The pdf generator is shutting down');
    const html = renderGeneratedHtml(document);
    const page = await this.acquire(signal);
    let reusable = false;
    const timer = AbortSignal.timeout(this.o.timeoutMs);
    const stop = signal ? AbortSignal.any([signal, timer]) : timer;
    try {
      const work = (async () => {
        await page.setContent(html, { waitUntil: 'load', timeout: this.o.timeoutMs });
        return page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true, timeout: this.o.timeoutMs });
      })();
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(timer.aborted ? errors.processing(`PDF generation timed out after ${Math.round(this.o.timeoutMs / 1000)} s`) : (signal?.reason ?? new Error('aborted')));
        if (stop.aborted) fail();
        else stop.addEventListener('abort', fail, { once: true });
      });
      work.catch(() => {});
      const bytes = await Promise.race([work, aborted]);
      reusable = true;
      return { bytes: Buffer.from(bytes), mime: 'application/pdf', extension: 'pdf' };
    } finally {
      // a page that ran out of time may still be busy: it is closed, not handed to the next pdf
      if (reusable) await page.goto('about:blank').catch(() => (reusable = false));
      this.release(reusable ? page : null);
      if (!reusable) await page.close().catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const b = this.browser;
    this.browser = null;
    this.idle.length = 0;
    if (b) await (await b.catch(() => null))?.close().catch(() => {});
  }
}

export default definePlugin({
  kind: 'generator',
  name: 'pdf',
  core: '^1',
  description: 'Writes generated documents as pdf: their html printed by Chromium (puppeteer-core; QUIRE_CHROMIUM_PATH).',
  options: PDF_GENERATOR_OPTIONS,
  create(ctx) {
    return new PdfGenerator(ctx.options, ctx.logger);
  },
});
