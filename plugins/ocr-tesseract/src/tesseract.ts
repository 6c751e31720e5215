/**
 * The system `tesseract` binary: recognition to TSV (words with boxes and confidences), script detection
 * (OSD), installed languages. Processes run without a shell (execFile), one thread each
 * (OMP_THREAD_LIMIT=1), at most `concurrency` at once, and are killed when the caller's signal aborts.
 *
 * A page costs what `tesseract <image> stdout --psm N [--dpi N] tsv` costs by hand: one process, TSV only
 * (lines, text and confidences are rebuilt from it), the image read as given (no conversion, no temp file).
 * The mode is 6 (one block of text) on narrow images such as till receipts, whose right-hand column of
 * amounts psm 3 split off as a block of its own and lost or garbled, and 3 (automatic layout) on pages.
 * The language list and the version are probed once and shared; OSD (--psm 0) runs only for
 * `detectOrientation`, `detectScript` and language 'auto'. One thread per process: tesseract's OpenMP
 * threads make a page slower, not faster, and pages run side by side up to `concurrency` instead.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import type { BBox, OcrResult, Word } from '@quire/core';
import { Limiter, errors } from '@quire/core';

/** The counting semaphore lives in core (the ppocr plugin uses it too); re-exported for this package's users. */
export { Limiter };

export const TESSERACT_MISSING = 'tesseract not found: install tesseract-ocr (scripts/install-system-deps.sh)';
export const LANGUAGE_PATTERN = /^[a-z_]+(\+[a-z_]+)*$/;
/** How long a successful `tesseract --version` answers health checks before it is asked again. */
const VERSION_TTL_MS = 60_000;

/** One OCR line with the tesseract block/paragraph it belongs to. */
export interface OcrLine {
  text: string;
  bbox: BBox;
  confidence: number;
  words: Word[];
  block: number;
  paragraph: number;
}

/** The OcrResult of one page, plus per-page results when the input had several pages (multi-page TIFF). */
export interface TesseractResult extends OcrResult {
  lines: OcrLine[];
  /** 1-based page number within the input */
  page: number;
  /** the language(s) used */
  language: string;
  /** every page of the input when there were more than one (the top level then holds all of them joined) */
  pages?: TesseractResult[];
}

export interface TesseractConfig {
  binary: string;
  concurrency: number;
  /** default language(s), or 'auto' */
  language: string;
  /** tesseract's page segmentation mode (--psm) for recognition, or 'auto' (the default): see choosePsm */
  psm?: number | 'auto';
}

/** Page segmentation modes recognition may run with: 3 automatic, 4 one column of lines, 6 one block, 11/12 sparse text. */
export const PSM_MODES = [1, 3, 4, 6, 11, 12] as const;
/** 'auto': one block of text (psm 6) on a narrow image (a till receipt, a strip), automatic (psm 3) on others. */
export const DEFAULT_PSM = 'auto';
/**
 * An image at least this many times as high as it is wide is narrow: one column of text, however its lines
 * are spaced. Pages are less (A4 1.41, Letter 1.29, Legal 1.65); till receipts are mostly 1.7 to 4.
 */
export const NARROW_ASPECT = 1.7;

/** Width and height from a PNG or JPEG header (the first 256 KiB of the file); null for other formats or when unreadable. */
export async function imageSize(file: string): Promise<{ width: number; height: number } | null> {
  let buf: Buffer;
  try {
    const fh = await fs.open(file, 'r');
    try {
      buf = Buffer.alloc(256 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      buf = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
  if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47 && buf.toString('latin1', 12, 16) === 'IHDR') {
    return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) return null;
      const marker = buf[i + 1]!;
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2;
        continue;
      }
      const len = buf.readUInt16BE(i + 2);
      // start of frame (baseline, progressive, ...; not DHT c4, JPG c8, DAC cc)
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: buf.readUInt16BE(i + 7), height: buf.readUInt16BE(i + 5) };
      }
      i += 2 + len;
    }
  }
  return null;
}

/** The page segmentation mode for an image: the configured one, or for 'auto' 6 when the image is narrow, else 3. */
export async function choosePsm(file: string, psm: number | 'auto' = DEFAULT_PSM): Promise<number> {
  if (psm !== 'auto') return psm;
  const size = await imageSize(file);
  return size && size.width > 0 && size.height / size.width >= NARROW_ASPECT ? 6 : 3;
}


interface ExecResult {
  stdout: string;
  stderr: string;
}

function run(binary: string, args: string[], signal?: AbortSignal, timeoutMs = 0): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      args,
      {
        env: { ...process.env, OMP_THREAD_LIMIT: '1' },
        maxBuffer: 256 * 1024 * 1024,
        signal,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error) {
          const e = error as Omit<NodeJS.ErrnoException, 'code'> & { code?: string | number; killed?: boolean; signal?: string | null };
          if (e.code === 'ENOENT') return reject(errors.unavailable(TESSERACT_MISSING));
          if (signal?.aborted) return reject(signal.reason ?? e);
          // what failed, in words; tesseract's own output (stderr) says little to users and is left out
          return reject(errors.processing(failure(e, timeoutMs)));
        }
        resolve({ stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** Why a tesseract run failed: its exit code, the signal that stopped it, or the time limit. */
function failure(e: { code?: string | number; killed?: boolean; signal?: string | null }, timeoutMs: number): string {
  if (typeof e.code === 'number') return `tesseract exited with code ${e.code}`;
  if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return 'tesseract gave more output than allowed';
  if (e.killed && timeoutMs > 0) return `tesseract did not finish within ${Math.round(timeoutMs / 1000)} s`;
  if (e.signal) return `tesseract was stopped (${e.signal})`;
  return 'tesseract could not be run';
}

/** Parses tesseract TSV output into one result per page. */
export function parseTsv(tsv: string, language = ''): TesseractResult[] {
  const pages = new Map<number, { width: number; height: number; lines: Map<string, OcrLine & { order: number }> }>();
  let order = 0;
  for (const row of tsv.split('\n')) {
    if (!row || row.startsWith('level')) continue;
    const cols = row.split('\t');
    if (cols.length < 11) continue;
    const level = Number(cols[0]);
    const pageNum = Number(cols[1]);
    const blockNum = Number(cols[2]);
    const parNum = Number(cols[3]);
    const lineNum = Number(cols[4]);
    const bbox = { x: Number(cols[6]), y: Number(cols[7]), width: Number(cols[8]), height: Number(cols[9]) };
    const conf = Number(cols[10]);
    const text = cols.slice(11).join('\t').trim();
    let page = pages.get(pageNum);
    if (!page) {
      page = { width: 0, height: 0, lines: new Map() };
      pages.set(pageNum, page);
    }
    if (level === 1) {
      page.width = bbox.width;
      page.height = bbox.height;
      continue;
    }
    const key = `${blockNum}.${parNum}.${lineNum}`;
    if (level === 4) {
      page.lines.set(key, { text: '', bbox, confidence: 0, words: [], block: blockNum, paragraph: parNum, order: order++ });
    } else if (level === 5 && text) {
      let line = page.lines.get(key);
      if (!line) {
        line = { text: '', bbox, confidence: 0, words: [], block: blockNum, paragraph: parNum, order: order++ };
        page.lines.set(key, line);
      }
      line.words.push({ text, bbox, confidence: conf >= 0 ? Math.min(1, conf / 100) : 0 });
    }
  }
  const results: TesseractResult[] = [];
  for (const [pageNum, page] of [...pages].sort((a, b) => a[0] - b[0])) {
    const lines: OcrLine[] = [];
    const space = typicalSpace([...page.lines.values()]);
    for (const l of [...page.lines.values()].sort((a, b) => a.order - b.order)) {
      if (!l.words.length) continue;
      const { order: _o, ...line } = l;
      if (space > 0) line.words = joinSplitDecimals(line.words, space);
      line.text = line.words.map((w) => w.text).join(' ');
      line.confidence = mean(line.words.map((w) => w.confidence));
      lines.push(line);
    }
    const words = lines.flatMap((l) => l.words);
    results.push({
      page: Math.max(1, pageNum),
      language,
      text: joinLines(lines),
      words,
      lines,
      confidence: words.length ? mean(words.map((w) => w.confidence)) : 0,
      width: page.width,
      height: page.height,
    });
  }
  return results;
}

/** The gaps between neighbouring words of each line, in pixels (a jump of more than two line heights is a column gap, left out). */
function wordGaps(words: Word[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < words.length; i++) {
    const a = words[i - 1]!.bbox, b = words[i]!.bbox;
    const gap = b.x - (a.x + a.width);
    if (gap >= 0 && gap <= 2 * Math.max(a.height, b.height)) gaps.push(gap);
  }
  return gaps;
}

/** The median space between words on a page (pixels); 0 when the page has too few to tell. */
function typicalSpace(lines: { words: Word[] }[]): number {
  const gaps = lines.flatMap((l) => wordGaps(l.words)).sort((a, b) => a - b);
  return gaps.length >= 5 ? gaps[Math.floor(gaps.length / 2)]! : 0;
}

/** An amount's integer part ending in its decimal separator ("79.", "1,234.") and the two decimals after it ("35"). */
const DECIMAL_HEAD = /\d[.,]$/;
const DECIMAL_TAIL = /^\d{2}(?!\d)[^\s\d]{0,2}$/;

/**
 * Amounts that tesseract split after their decimal separator ("79. 35" for 79.35; it happens in the wide
 * monospaced print of till receipts) become one word again: a word ending in a digit and "." or ",", then
 * two digits, with a gap narrower than three quarters of the page's usual space between words. A real space
 * after a number ending a sentence is as wide as any other, and stays.
 */
export function joinSplitDecimals(words: Word[], space: number): Word[] {
  const out: Word[] = [];
  for (const w of words) {
    const prev = out[out.length - 1];
    if (prev && DECIMAL_HEAD.test(prev.text) && DECIMAL_TAIL.test(w.text)) {
      const gap = w.bbox.x - (prev.bbox.x + prev.bbox.width);
      if (gap < space * 0.75) {
        const x = Math.min(prev.bbox.x, w.bbox.x), y = Math.min(prev.bbox.y, w.bbox.y);
        const bbox = { x, y, width: Math.max(prev.bbox.x + prev.bbox.width, w.bbox.x + w.bbox.width) - x, height: Math.max(prev.bbox.y + prev.bbox.height, w.bbox.y + w.bbox.height) - y };
        out[out.length - 1] = { text: prev.text + w.text, bbox, confidence: Math.min(prev.confidence, w.confidence) };
        continue;
      }
    }
    out.push(w);
  }
  return out;
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** Lines joined by newlines, a blank line between tesseract paragraphs. */
function joinLines(lines: OcrLine[]): string {
  let out = '';
  let prev: OcrLine | null = null;
  for (const l of lines) {
    if (prev) out += prev.block !== l.block || prev.paragraph !== l.paragraph ? '\n\n' : '\n';
    out += l.text;
    prev = l;
  }
  return out;
}

/** Tesseract's OSD script names → traineddata codes. */
const SCRIPT_LANGUAGES: Record<string, string[]> = {
  Latin: ['eng'],
  Cyrillic: ['rus', 'ukr', 'bul', 'srp'],
  Greek: ['ell'],
  Arabic: ['ara', 'fas', 'urd'],
  Hebrew: ['heb'],
  Han: ['chi_sim', 'chi_tra'],
  HanS: ['chi_sim'],
  HanT: ['chi_tra'],
  Japanese: ['jpn'],
  Katakana: ['jpn'],
  Hiragana: ['jpn'],
  Hangul: ['kor'],
  Korean: ['kor'],
  Devanagari: ['hin', 'mar', 'nep'],
  Bengali: ['ben'],
  Thai: ['tha'],
  Armenian: ['hye'],
  Georgian: ['kat'],
  Tamil: ['tam'],
  Telugu: ['tel'],
  Kannada: ['kan'],
  Malayalam: ['mal'],
  Gujarati: ['guj'],
  Gurmukhi: ['pan'],
  Ethiopic: ['amh'],
  Khmer: ['khm'],
  Lao: ['lao'],
  Myanmar: ['mya'],
  Sinhala: ['sin'],
  Tibetan: ['bod'],
};

export interface OsdResult {
  script: string;
  scriptConfidence: number;
  orientation: number;
  /** clockwise degrees to turn the image to make the text upright */
  rotate: number;
  orientationConfidence: number;
}

export function parseOsd(out: string): OsdResult | null {
  const get = (k: string) => new RegExp(`^${k}:\\s*(.+)$`, 'm').exec(out)?.[1]?.trim();
  const script = get('Script');
  if (!script) return null;
  return {
    script,
    scriptConfidence: Number(get('Script confidence') ?? 0),
    orientation: Number(get('Orientation in degrees') ?? 0),
    rotate: Number(get('Rotate') ?? 0),
    orientationConfidence: Number(get('Orientation confidence') ?? 0),
  };
}

export class Tesseract {
  private readonly limiter: Limiter;
  private langs: Promise<string[]> | null = null;
  private versionProbe: { at: number; value: Promise<string | null> } | null = null;

  constructor(private readonly cfg: TesseractConfig) {
    this.limiter = new Limiter(Math.max(1, cfg.concurrency));
  }

  get running(): number {
    return this.limiter.running;
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    try {
      const version = await this.version();
      const langs = await this.languages();
      return { ok: true, message: `tesseract ${version ?? '(unknown version)'}; languages: ${langs.filter((l) => l !== 'osd').join(', ') || '(none)'}` };
    } catch (e) {
      return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
  }

  /**
   * The binary's version (tesseract --version), or null when its output names none. One probe serves every
   * caller for VERSION_TTL_MS after it succeeds: readiness checks ask often, and a process each time is a
   * cost for nothing; a binary removed meanwhile is noticed at the next probe (and by any recognition).
   */
  version(): Promise<string | null> {
    if (!this.versionProbe || Date.now() - this.versionProbe.at > VERSION_TTL_MS) {
      const probe = {
        at: Date.now(),
        value: run(this.cfg.binary, ['--version'], undefined, 10_000).then(({ stdout, stderr }) => /tesseract\s+v?([\d.]+)/i.exec(stdout + stderr)?.[1] ?? null),
      };
      probe.value.catch(() => {
        if (this.versionProbe === probe) this.versionProbe = null;
      });
      this.versionProbe = probe;
    }
    return this.versionProbe.value;
  }

  /** Installed languages (tesseract --list-langs), cached after the first successful call. */
  languages(): Promise<string[]> {
    if (!this.langs) {
      this.langs = run(this.cfg.binary, ['--list-langs'], undefined, 10_000).then(({ stdout, stderr }) =>
        (stdout + '\n' + stderr)
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => LANGUAGE_PATTERN.test(l))
          .sort(),
      );
      this.langs.catch(() => (this.langs = null));
    }
    return this.langs;
  }

  /** The language(s) to run: validated explicit codes, or for 'auto' the script detected by OSD. */
  async resolveLanguage(imagePath: string, language: string | undefined, signal?: AbortSignal): Promise<string> {
    const installed = await this.languages();
    const requested = (language || this.cfg.language).trim().toLowerCase();
    const fallback = this.defaultLanguage(installed);
    if (requested === 'auto') {
      const osd = await this.detectScript(imagePath, signal).catch((e) => {
        if (signal?.aborted) throw e;
        return null;
      });
      if (!osd) return fallback;
      const candidates = SCRIPT_LANGUAGES[osd.script] ?? [];
      if (osd.script === 'Latin' && fallback.split('+').every((l) => installed.includes(l))) return fallback;
      const found = candidates.filter((c) => installed.includes(c));
      return found.length ? found[0]! : fallback;
    }
    if (!LANGUAGE_PATTERN.test(requested)) throw errors.validation(`Invalid OCR language "${language}": use tesseract codes joined with + (e.g. eng+deu) or auto`);
    const missing = requested.split('+').filter((l) => !installed.includes(l));
    if (missing.length) throw errors.validation(`OCR language not installed: ${missing.join(', ')} (installed: ${installed.filter((l) => l !== 'osd').join(', ')})`);
    return requested;
  }

  private defaultLanguage(installed: string[]): string {
    const d = this.cfg.language.toLowerCase();
    if (d !== 'auto' && LANGUAGE_PATTERN.test(d) && d.split('+').every((l) => installed.includes(l))) return d;
    if (installed.includes('eng')) return 'eng';
    return installed.find((l) => l !== 'osd') ?? 'eng';
  }

  /** Script and orientation (tesseract --psm 0). Null when there is too little text to tell. */
  async detectScript(imagePath: string, signal?: AbortSignal): Promise<OsdResult | null> {
    const installed = await this.languages();
    if (!installed.includes('osd')) return null;
    const { stdout } = await this.limiter.run(() => run(this.cfg.binary, [imagePath, 'stdout', '--psm', '0', '-l', 'osd'], signal), signal);
    return parseOsd(stdout);
  }

  /** How far the page is turned (tesseract OSD): clockwise degrees to make it upright, or null when unsure. */
  async detectOrientation(imagePath: string, options: { signal?: AbortSignal } = {}): Promise<{ rotate: number; confidence: number } | null> {
    const osd = await this.detectScript(imagePath, options.signal).catch((e) => {
      if (options.signal?.aborted) throw e;
      return null;
    });
    if (!osd || !Number.isFinite(osd.rotate)) return null;
    return { rotate: ((osd.rotate % 360) + 360) % 360, confidence: osd.orientationConfidence };
  }

  /** Recognises every page of an image; the first element is page 1. */
  async recognizePages(imagePath: string, options: { language?: string; signal?: AbortSignal; dpi?: number }): Promise<TesseractResult[]> {
    const lang = await this.resolveLanguage(imagePath, options.language, options.signal);
    const psm = await choosePsm(imagePath, this.cfg.psm);
    const args = [imagePath, 'stdout', '--psm', String(psm), '-l', lang];
    if (options.dpi && Number.isFinite(options.dpi) && options.dpi >= 50 && options.dpi <= 2400) args.push('--dpi', String(Math.round(options.dpi)));
    args.push('tsv');
    const { stdout } = await this.limiter.run(() => run(this.cfg.binary, args, options.signal), options.signal);
    const pages = parseTsv(stdout, lang);
    return pages.length ? pages : [{ page: 1, language: lang, text: '', words: [], lines: [], confidence: 0, width: 0, height: 0 }];
  }

  /** OcrPlugin.recognize: page 1's result, with `pages` when the input had several. */
  async recognize(imagePath: string, options: { language?: string; signal?: AbortSignal; dpi?: number }): Promise<TesseractResult> {
    const pages = await this.recognizePages(imagePath, options);
    if (pages.length === 1) return pages[0]!;
    const words = pages.flatMap((p) => p.words);
    return {
      ...pages[0]!,
      text: pages.map((p) => p.text).join('\n\n'),
      words,
      lines: pages.flatMap((p) => p.lines),
      confidence: words.length ? mean(words.map((w) => w.confidence)) : 0,
      pages,
    };
  }
}
