/**
 * PP-OCR in this process: the DB text detector and the CRNN/SVTR recogniser (ONNX files) run by
 * onnxruntime-node, with image decoding by @napi-rs/canvas and the rest in JavaScript (pipeline.ts).
 *
 * Memory stays bounded: one InferenceSession per model per process, made at the first recognition and
 * reused; the CPU memory arena is on by default (its buffers serve run after run: without it every run maps
 * and faults in its large buffers again) and memory patterns off; each image's tensors are disposed when it is done;
 * at most `concurrency` images are in flight; an image is decoded at most `maxImageSide` pixels on its
 * long side, recognition batches are at most `recBatch` boxes and `MAX_REC_WIDTH` pixels wide.
 * `session.run` works on onnxruntime's own threads (`threads` of them per model), so the event loop is free
 * while a model runs; the JavaScript steps (resizing, the detector's components, decoding) take a few
 * milliseconds at a time.
 */
import fs from 'node:fs/promises';
import type { OcrResult } from '@quire/core';
import { Limiter, errors } from '@quire/core';
import { DB_DEFAULTS, boxBounds, characters, ctcDecode, dbBoxes, detectionSize, groupLines, lineRows, sampleRegion, spacedBox, voteChars } from './pipeline.js';
import type { Box, DecodedBox, Line, Rgba } from './pipeline.js';

type Ort = typeof import('onnxruntime-node');
type Session = import('onnxruntime-node').InferenceSession;
type Tensor = import('onnxruntime-node').Tensor;

/** Languages the bundled models read: the PP-OCRv4 Chinese model, whose dictionary has Latin letters, digits and punctuation too, and most common traditional characters beside the simplified ones. */
export const PPOCR_LANGUAGES = ['chi_sim', 'chi_tra', 'eng'] as const;
/** The recogniser's input height (PP-OCRv3/v4 models: 3 × 48 × W). */
export const REC_HEIGHT = 48;
/** The narrowest recognition batch (PaddleOCR's 320) and the widest (longer boxes are squeezed). */
const MIN_REC_WIDTH = 320;
export const MAX_REC_WIDTH = 2400;
/**
 * A box with a character read at a probability under this is read again at the widths of RETRY_WIDTHS, and
 * the reading with the highest mean probability is kept. Off by default: at 0.8 over the corpus's 100 receipts
 * (bench/ocr.ts) it won 2 totals and a date but lost 2 company names net, the wider readings splitting words
 * ("HARD WARE", "AE ON") through the word-space rules.
 */
export const RETRY_BELOW = 0;
/**
 * The widths a doubtful box is read again at, as factors of the width its aspect ratio gives (1.3 and 0.8 times
 * as wide): condensed or widely spaced type (bold titles, dot-matrix print) comes closer to the character
 * widths the model was trained on, and the recogniser's steps fall differently on the characters.
 */
export const RETRY_WIDTHS: readonly number[] = [1.3, 0.8];
/**
 * Another way of drawing a box for the recogniser: `widen` times as wide as its aspect ratio gives, `tall`
 * times as high (more paper above and below, the letters smaller), `tone` its pixels contrast-stretched
 * (the darkest 2 % black, the lightest 2 % white) or binarised (Otsu's threshold on the box's grey levels).
 */
export interface Variant {
  widen?: number;
  tall?: number;
  tone?: 'stretch' | 'binarise';
}

/** What the vote between readings of the top lines does (voteChars): nothing when `lines` is 0 or no variant is given. */
export interface VoteConfig {
  /** the boxes of the first this many lines are read again */
  lines: number;
  /** once per variant */
  variants: readonly Variant[];
  /** VoteOptions.tieBelow */
  tieBelow: number;
}

export const VOTE_OFF: VoteConfig = { lines: 0, variants: [], tieBelow: 0 };
/**
 * The lines voted on by default (plugin option voteLines): the first 3 of an image, where receipts and invoices
 * print who issued them. Measured with bench/vote.ts over the corpus's 100 receipts (PP-OCR's text, the same
 * readings voted every way): with VOTE_VARIANTS and VOTE_TIE_BELOW the company name appears verbatim in 91
 * (89 without the vote; +2, none lost), the date in 98 and the total in 99 as without it; the first 8 lines
 * give the same. Over the 400 combinations the bench tries (up to 4 of 6 PP-OCR variants, with and without
 * tesseract's reading of the crop, 3 or 8 lines, with and without the tie-breaker) company ranges from 87 to
 * 91 (median 89) and no date or total is lost; tesseract's reading adds nothing to the PP-OCR variants.
 * Through the image reader (bench/ocr.ts, all 100) the default gives company 90 (89 before), date 98, total 99:
 * one of the bench's two wins (159) depends on which boxes share a recognition batch.
 */
export const VOTE_LINES = 3;
/**
 * The readings beside the first one: contrast-stretched, binarised, and drawn 1.3 times as wide. Readings of
 * the same print share most mistakes ("SON BHD" for "SDN BHD" in every one); these three differ the most.
 */
export const VOTE_VARIANTS: readonly Variant[] = [{ tone: 'stretch' }, { tone: 'binarise' }, { widen: 1.3 }];
/**
 * With four readings a letter often has two against two: the other letter wins when the first reading gave
 * its own under this probability (step 2; at 0 the vote above wins nothing: company 89).
 */
export const VOTE_TIE_BELOW = 0.9;

const DET_MEAN = [0.485, 0.456, 0.406] as const;
const DET_STD = [0.229, 0.224, 0.225] as const;
const REC_MEAN = [0.5, 0.5, 0.5] as const;
const REC_STD = [0.5, 0.5, 0.5] as const;

export interface PpocrConfig {
  detModel: string;
  recModel: string;
  dictionary: string;
  /** images recognised at once */
  concurrency: number;
  /** onnxruntime intra-op threads of each model */
  threads: number;
  /** the detector's input: long side at most this many pixels */
  detMaxSide: number;
  /** images are decoded at most this many pixels on the long side (larger ones are shrunk) */
  maxImageSide: number;
  /** boxes recognised per model run */
  recBatch: number;
  /** recognised boxes below this confidence are dropped (PaddleOCR's drop_score) */
  dropScore: number;
  /** onnxruntime's CPU memory arena (buffers reused from run to run; memory kept at the largest run's need) */
  memArena: boolean;
  /** onnxruntime's graph optimisation level (default 'all') */
  graphOptimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** onnxruntime's memory patterns (default: as memArena) */
  memPattern?: boolean;
  /** a box with a character read at a probability under this is read again at other widths (retryWidths; 0: never) */
  retryBelow: number;
  /** the widths a doubtful box is read again at, as factors of the width its aspect ratio gives */
  retryWidths: readonly number[];
  /** the vote between readings of the top lines (default: off) */
  vote?: VoteConfig;
}

interface Models {
  ort: Ort;
  det: Session;
  rec: Session;
  chars: string[];
}

/**
 * onnxruntime's builds carry a telemetry client that, unless told otherwise, writes a session file and a
 * log into the temp folder and may report usage. It reads ORT_DISABLE_TELEMETRY from the process's
 * environment when the runtime starts: set here (in the main thread, where setting process.env sets the
 * process's environment) unless the operator set it.
 */
export function quietRuntime(): void {
  if (process.env.ORT_DISABLE_TELEMETRY === undefined) process.env.ORT_DISABLE_TELEMETRY = '1';
}

/** A model or dictionary that cannot be used: permanent (retrying does not help), reported by health(). */
function modelError(message: string): Error {
  return Object.assign(errors.unavailable(message, { ocr: 'ppocr' }), { retryable: false });
}

export class Ppocr {
  private models: Promise<Models> | null = null;
  private readonly limiter: Limiter;

  constructor(readonly cfg: PpocrConfig) {
    this.limiter = new Limiter(Math.max(1, cfg.concurrency));
  }

  async languages(): Promise<string[]> {
    return [...PPOCR_LANGUAGES];
  }

  async health(): Promise<{ ok: boolean; message?: string }> {
    try {
      const m = await this.load();
      return { ok: true, message: `PP-OCR (onnxruntime ${m.ort.env.versions?.common ?? ''}); languages: ${PPOCR_LANGUAGES.join(', ')}` };
    } catch (e) {
      return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
  }

  /** The sessions and the dictionary, loaded once per process (a failed load is tried again next time). */
  load(): Promise<Models> {
    if (!this.models) {
      this.models = this.open();
      this.models.catch(() => (this.models = null));
    }
    return this.models;
  }

  private async open(): Promise<Models> {
    quietRuntime();
    let ort: Ort;
    try {
      ort = (await import('onnxruntime-node')) as Ort;
      ort = ((ort as unknown as { default?: Ort }).default ?? ort) as Ort;
    } catch (e) {
      throw modelError(`onnxruntime-node cannot be loaded: ${(e as Error).message}`);
    }
    const options = {
      intraOpNumThreads: this.cfg.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential' as const,
      graphOptimizationLevel: this.cfg.graphOptimization ?? ('all' as const),
      enableCpuMemArena: this.cfg.memArena,
      enableMemPattern: this.cfg.memPattern ?? this.cfg.memArena,
    };
    const session = async (file: string, what: string) => {
      try {
        return await ort.InferenceSession.create(file, options);
      } catch (e) {
        throw modelError(`PP-OCR ${what} model ${file} cannot be loaded: ${(e as Error).message.split('\n')[0]}`);
      }
    };
    let dictionary: string;
    try {
      dictionary = await fs.readFile(this.cfg.dictionary, 'utf8');
    } catch (e) {
      throw modelError(`PP-OCR dictionary ${this.cfg.dictionary} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const det = await session(this.cfg.detModel, 'detection');
    const rec = await session(this.cfg.recModel, 'recognition').catch(async (e) => {
      await det.release().catch(() => {});
      throw e;
    });
    const chars = characters(dictionary);
    const classes = rec.outputMetadata?.[0] as { shape?: (number | string)[] } | undefined;
    const n = classes?.shape?.[2];
    if (typeof n === 'number' && n !== chars.length) {
      await Promise.all([det.release(), rec.release()]).catch(() => {});
      throw modelError(`PP-OCR dictionary ${this.cfg.dictionary} has ${chars.length - 2} characters, the recognition model ${n - 2}`);
    }
    return { ort, det, rec, chars };
  }

  /** Releases the sessions (the next recognition loads them again). */
  async close(): Promise<void> {
    const m = await this.models?.catch(() => null);
    this.models = null;
    if (m) await Promise.all([m.det.release(), m.rec.release()]).catch(() => {});
  }

  /** Checks a requested language: codes joined with +, each one the models read, or auto. */
  checkLanguage(language: string | undefined): void {
    // none named: the models read every language they know (the plugin passes the configured default)
    const requested = (language ?? '').trim().toLowerCase();
    if (!requested || requested === 'auto') return;
    const unknown = requested.split('+').filter((l) => !(PPOCR_LANGUAGES as readonly string[]).includes(l));
    if (unknown.length) throw errors.validation(`OCR language not supported by the ppocr engine: ${unknown.join(', ')} (it reads ${PPOCR_LANGUAGES.join(', ')}; QUIRE_OCR_ENGINE=tesseract reads the languages tesseract has installed)`);
  }

  async recognize(imagePath: string, options: { language?: string; signal?: AbortSignal; dpi?: number } = {}): Promise<OcrResult & { lines: Line[]; language: string }> {
    this.checkLanguage(options.language);
    const models = await this.load();
    return this.limiter.run(async () => {
      const image = await this.decode(imagePath);
      options.signal?.throwIfAborted();
      const found = await this.boxes(image, models, options.signal);
      // boxes in the pixels of the image as given (it may have been decoded smaller)
      const lines = groupLines(found.map((d) => spacedBox(d)));
      const words = lines.flatMap((l) => l.words);
      return {
        text: lines.map((l) => l.text).join('\n'),
        words,
        lines,
        confidence: words.length ? words.reduce((a, w) => a + w.confidence, 0) / words.length : 0,
        width: image.width,
        height: image.height,
        language: (options.language || PPOCR_LANGUAGES.join('+')).toLowerCase(),
      };
    }, options.signal);
  }

  /**
   * The recognised boxes of an image before they are split into words: each box's characters with their
   * extent across it (bench/space-gap.ts measures the word-space rule on them).
   */
  async decodedBoxes(imagePath: string, opts: { vote?: VoteConfig; unvoted?: boolean } = {}): Promise<(DecodedBox & { alts?: string[][] })[]> {
    const models = await this.load();
    return this.limiter.run(async () => this.boxes(await this.decode(imagePath), models, undefined, opts));
  }

  /** Recognised boxes in the pixels of the image as given (it may have been decoded smaller). */
  private async boxes(image: { rgba: Rgba; width: number }, models: Models, signal?: AbortSignal, opts: { vote?: VoteConfig; unvoted?: boolean } = {}): Promise<(DecodedBox & { alts?: string[][] })[]> {
    const boxes = await this.detect(models, image.rgba);
    signal?.throwIfAborted();
    const found = await this.read(models, image.rgba, boxes, signal, opts.vote ?? this.cfg.vote ?? VOTE_OFF, opts.unvoted);
    const k = image.width / image.rgba.width;
    return found.map((r) => ({ ...r, bbox: scaleBox(r.bbox, k) }));
  }

  /** The image's pixels (RGBA), shrunk to maxImageSide when larger. An unreadable image is UNPROCESSABLE. */
  private async decode(imagePath: string): Promise<{ rgba: Rgba; width: number; height: number }> {
    const { loadImage, createCanvas } = await import('@napi-rs/canvas');
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(imagePath);
    } catch (e) {
      throw errors.processing(`The image for OCR cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    // only the formats the canvas decodes safely: it crashes the process on some TIFF files (tesseract reads those)
    const kind = decodableKind(bytes);
    if (!kind) throw errors.unprocessable('The image cannot be decoded for OCR (corrupt or unsupported format: the ppocr engine decodes PNG, JPEG, GIF, BMP and WebP)', { ocr: 'ppocr', undecodable: true });
    let img: Awaited<ReturnType<typeof loadImage>>;
    try {
      img = await loadImage(bytes);
    } catch {
      throw errors.unprocessable('The image cannot be decoded for OCR (corrupt or unsupported format)');
    }
    const width = img.width;
    const height = img.height;
    if (!(width > 0 && height > 0)) throw errors.unprocessable('The image cannot be decoded for OCR (no pixels)');
    const k = Math.min(1, this.cfg.maxImageSide / Math.max(width, height));
    const w = Math.max(1, Math.round(width * k));
    const h = Math.max(1, Math.round(height * k));
    const canvas = createCanvas(w, h);
    const g = canvas.getContext('2d');
    g.fillStyle = '#fff'; // transparent pixels read as paper
    g.fillRect(0, 0, w, h);
    g.drawImage(img, 0, 0, w, h);
    const data = g.getImageData(0, 0, w, h).data;
    // the canvas's own pixels go now, not when the collector gets to them
    canvas.width = 1;
    canvas.height = 1;
    return { rgba: { data, width: w, height: h }, width, height };
  }

  /** Text boxes in the decoded image's pixels. */
  private async detect(m: Models, img: Rgba): Promise<Box[]> {
    const size = detectionSize(img.width, img.height, this.cfg.detMaxSide);
    const input = new Float32Array(3 * size.width * size.height);
    sampleRegion(img, { cx: img.width / 2, cy: img.height / 2, width: img.width, height: img.height, angle: 0 }, size.width, size.height, input, 0, size.width, DET_MEAN, DET_STD);
    const out = await run(m.det, new m.ort.Tensor('float32', input, [1, 3, size.height, size.width]));
    try {
      const [, , mh, mw] = out.dims as number[];
      const boxes = dbBoxes(out.data as Float32Array, mw!, mh!, DB_DEFAULTS);
      const kx = img.width / mw!;
      const ky = img.height / mh!;
      return boxes.map((b) => ({ ...b, cx: b.cx * kx, cy: b.cy * ky, width: b.width * kx, height: b.height * ky }));
    } finally {
      out.dispose();
    }
  }

  /**
   * Recognises each box (batches of similar aspect ratio, as PaddleOCR does). A box with a character read at a
   * probability under `retryBelow` is read again, drawn at each width of `retryWidths`, and the reading with the
   * highest confidence (mean probability of its characters) is kept. Boxes under `dropScore` after that are
   * left out. The boxes of the first `vote.lines` lines are then read once per variant of `vote.variants` and
   * their characters voted on (voteChars); `unvoted` (for the bench) gives the other readings as `alts` instead.
   */
  private async read(m: Models, img: Rgba, boxes: Box[], signal?: AbortSignal, vote: VoteConfig = VOTE_OFF, unvoted = false): Promise<(DecodedBox & { alts?: string[][] })[]> {
    const first = await this.recognise(m, img, boxes.filter((b) => b.width >= 1 && b.height >= 1), signal);
    const doubtful = first.filter((r) => r.chars.some((c) => c.p < this.cfg.retryBelow));
    if (doubtful.length && this.cfg.retryWidths.length) {
      const again = doubtful.flatMap((r) => this.cfg.retryWidths.map((widen) => ({ r, widen })));
      const readings = await this.recognise(m, img, again.map((e) => e.r.box), signal, again.map((e) => e.widen));
      readings.forEach((a, i) => {
        const r = again[i]!.r;
        // positions are shares of the box's width whatever width it was drawn at
        if (a.confidence > r.confidence) Object.assign(r, { confidence: a.confidence, chars: a.chars });
      });
    }
    const kept = first.filter((r) => r.chars.some((c) => c.text.trim()) && r.confidence >= this.cfg.dropScore);
    const alts = new Map<Reading, string[][]>();
    if (vote.lines > 0 && vote.variants.length) {
      // the boxes of the top lines, each read once per variant
      const top = lineRows(kept.map((r) => boxBounds(r.box, img.width, img.height)))
        .slice(0, vote.lines)
        .flat()
        .map((i) => kept[i]!);
      const again = top.flatMap((r) => vote.variants.map((v) => ({ r, v })));
      const readings = await this.recognise(m, img, again.map((e) => e.r.box), signal, again.map((e) => e.v));
      readings.forEach((a, i) => {
        const r = again[i]!.r;
        alts.set(r, [...(alts.get(r) ?? []), a.chars.map((c) => c.text)]);
      });
    }
    return kept.map((r) => {
      const a = alts.get(r);
      const chars = a && !unvoted ? voteChars(r.chars, a, { tieBelow: vote.tieBelow }) : r.chars;
      return { confidence: r.confidence, bbox: boxBounds(r.box, img.width, img.height), chars, ...(a && unvoted ? { alts: a } : {}) };
    });
  }

  /**
   * The recogniser's reading of each box, in the boxes' order: characters with their extent across the box
   * (0..1) and probability. `widen[i]`: box i drawn that many times as wide as its aspect ratio gives.
   */
  private async recognise(m: Models, img: Rgba, boxes: Box[], signal?: AbortSignal, widen?: (number | Variant)[]): Promise<Reading[]> {
    const order = boxes
      .map((b0, index) => {
        const v = typeof widen?.[index] === 'number' ? { widen: widen[index] as number } : ((widen?.[index] as Variant | undefined) ?? {});
        const b = v.tall ? { ...b0, height: b0.height * v.tall } : b0;
        return { b, index, tone: v.tone, ratio: (b.width / Math.max(1, b.height)) * (v.widen ?? 1) };
      })
      .sort((a, b) => a.ratio - b.ratio);
    const found: Reading[] = new Array(boxes.length);
    for (let i = 0; i < order.length; i += this.cfg.recBatch) {
      signal?.throwIfAborted();
      const batch = order.slice(i, i + this.cfg.recBatch);
      const maxRatio = Math.max(...batch.map((e) => e.ratio));
      const width = Math.min(MAX_REC_WIDTH, Math.max(MIN_REC_WIDTH, Math.ceil(REC_HEIGHT * maxRatio)));
      const plane = REC_HEIGHT * width;
      const input = new Float32Array(batch.length * 3 * plane); // 0 after normalising: mid-grey padding, as PaddleOCR pads
      batch.forEach((e, j) => {
        const w = Math.max(1, Math.min(width, Math.ceil(REC_HEIGHT * e.ratio)));
        sampleRegion(img, e.b, w, REC_HEIGHT, input, j * 3 * plane, width, REC_MEAN, REC_STD);
        if (e.tone) retone(input, j * 3 * plane, w, REC_HEIGHT, width, e.tone);
      });
      const out = await run(m.rec, new m.ort.Tensor('float32', input, [batch.length, 3, REC_HEIGHT, width]));
      try {
        const [, steps, classes] = out.dims as number[];
        // a step is width / steps pixels of the batch; the box's crop is its first w of them
        const stepPx = width / steps!;
        batch.forEach((e, j) => {
          const { confidence, chars } = ctcDecode(out.data as Float32Array, j * steps! * classes!, steps!, classes!, m.chars);
          const w = Math.max(1, Math.min(width, Math.ceil(REC_HEIGHT * e.ratio)));
          found[e.index] = { box: boxes[e.index]!, confidence, chars: chars.map((c) => ({ text: c.text, start: (c.start * stepPx) / w, end: ((c.end + 1) * stepPx) / w, space: c.space, p: c.p })) };
        });
      } finally {
        out.dispose();
      }
    }
    return found;
  }
}

/** A box as the recogniser read it: characters with their extent across the box (0..1) and probability. */
interface Reading {
  box: Box;
  confidence: number;
  chars: (DecodedBox['chars'][number] & { p: number })[];
}

/**
 * A box's pixels in a recognition batch (`w` × `h` of rows `stride` wide, 3 planes from `offset`, values -1..1)
 * contrast-stretched (grey levels of the darkest and lightest 2 % to -1 and 1) or binarised (Otsu's threshold
 * on the grey levels).
 */
export function retone(input: Float32Array, offset: number, w: number, h: number, stride: number, tone: 'stretch' | 'binarise'): void {
  const plane = h * stride;
  const hist = new Uint32Array(256);
  const level = (v: number) => Math.max(0, Math.min(255, Math.round((v + 1) * 127.5)));
  const grey = (i: number) => (input[i]! + input[i + plane]! + input[i + 2 * plane]!) / 3;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) hist[level(grey(offset + y * stride + x))]!++;
  const n = w * h;
  if (tone === 'stretch') {
    let lo = 0;
    let hi = 255;
    for (let acc = 0; lo < 255 && (acc += hist[lo]!) < 0.02 * n; ) lo++;
    for (let acc = 0; hi > 0 && (acc += hist[hi]!) < 0.02 * n; ) hi--;
    if (hi - lo < 8) return;
    const a = lo / 127.5 - 1;
    const k = 2 / ((hi - lo) / 127.5);
    for (let c = 0; c < 3; c++)
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const i = offset + c * plane + y * stride + x;
          input[i] = Math.max(-1, Math.min(1, (input[i]! - a) * k - 1));
        }
    return;
  }
  // Otsu: the level that best separates the two classes of grey levels
  let sum = 0;
  for (let t = 0; t < 256; t++) sum += t * hist[t]!;
  let sumB = 0;
  let wB = 0;
  let best = -1;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!;
    if (!wB) continue;
    const wF = n - wB;
    if (!wF) break;
    sumB += t * hist[t]!;
    const between = wB * wF * (sumB / wB - (sum - sumB) / wF) ** 2;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = offset + y * stride + x;
      const v = level(grey(i)) > threshold ? 1 : -1;
      input[i] = input[i + plane] = input[i + 2 * plane] = v;
    }
}

/** Runs a one-input, one-output model; the input tensor is disposed here, the output by the caller. */
async function run(session: Session, input: Tensor): Promise<Tensor> {
  try {
    const result = await session.run({ [session.inputNames[0]!]: input });
    const name = session.outputNames[0]!;
    for (const [k, t] of Object.entries(result)) if (k !== name) t.dispose();
    return result[name]!;
  } catch (e) {
    throw errors.processing(`PP-OCR model run failed: ${(e as Error).message.split('\n')[0]}`);
  } finally {
    input.dispose();
  }
}

function scaleBox(b: { x: number; y: number; width: number; height: number }, k: number) {
  const x = Math.max(0, Math.round(b.x * k));
  const y = Math.max(0, Math.round(b.y * k));
  return { x, y, width: Math.max(1, Math.round((b.x + b.width) * k) - x), height: Math.max(1, Math.round((b.y + b.height) * k) - y) };
}

/** The image format from its first bytes when it is one the canvas decodes (PNG, JPEG, GIF, BMP, WebP), else null. */
export function decodableKind(b: Uint8Array): 'png' | 'jpg' | 'gif' | 'bmp' | 'webp' | null {
  const at = (o: number, ...v: number[]) => v.every((x, i) => b[o + i] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47)) return 'png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'jpg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'gif';
  if (at(0, 0x42, 0x4d)) return 'bmp';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'webp';
  return null;
}
