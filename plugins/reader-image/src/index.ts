import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENTIC_KEY, builtinFormats, definePlugin, DocumentBuilder, errors, isQuireError, OCR_PENDING_KEY, readLimits, z } from '@quire/core';
import type { AgenticOcrReport, OcrPlugin, OcrResult, ParsedDocument, PluginContext, ReaderInput, ReaderPlugin, ReadOptions } from '@quire/core';
import { detectRules, layoutOcrPage, markOcrFurniture, median, ocrWordsToPoints, pickBetterLines, scaleRules } from '@quire/layout';
import type { OcrElement } from '@quire/layout';
import type { Rule } from '@quire/layout';
import { imageInfo } from './imageinfo.js';
import type { ImageFrame } from './imageinfo.js';

export { imageInfo } from './imageinfo.js';
export type { ImageInfo, ImageFrame } from './imageinfo.js';

export const IMAGE_FORMATS = ['png', 'jpg', 'gif', 'bmp', 'tiff'];

/** An OCR result that may carry one result per page of a multi-page image (the tesseract plugin does). */
type MultiPageResult = OcrResult & { pages?: OcrResult[] };

/** Ruling lines of an image (png, jpg, gif, bmp) in pixels; none when it cannot be decoded here. */
async function imageRules(bytes: Buffer, maxPixels: number): Promise<Rule[]> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const img = await loadImage(bytes);
  if (!img.width || !img.height || img.width * img.height > Math.min(60_000_000, maxPixels)) return [];
  const canvas = createCanvas(img.width, img.height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, img.width, img.height);
  g.drawImage(img, 0, 0);
  const data = g.getImageData(0, 0, img.width, img.height);
  return detectRules({ data: data.data, width: img.width, height: img.height });
}

/** Resolution OCR reads well at; images below MIN_OCR_DPI are enlarged towards it. */
export const TARGET_OCR_DPI = 300;
export const MIN_OCR_DPI = 200;
/** Largest enlargement, and the most pixels an enlarged image may have. */
const MAX_UPSCALE = 4;
const MAX_UPSCALED_PIXELS = 40_000_000;
/** Text lines lower than this (pixels) are too small for OCR; they are enlarged to about TARGET_LINE_PX. */
const MIN_LINE_PX = 16;
const TARGET_LINE_PX = 32;
/** Formats the canvas can decode (for enlarging and for ruling lines). */
const DECODABLE = new Set(['png', 'jpg', 'gif', 'bmp']);

export interface UpscalePlan {
  factor: number;
  /** the resolution the image has (from its header or estimated from its size) */
  dpi: number;
  reason: 'dpi' | 'page-size' | 'glyph-height';
}

/** A4 or Letter in either orientation: the long side is 1.2-1.55 times the short one. */
const pageShaped = (w: number, h: number) => {
  const r = Math.max(w, h) / Math.max(1, Math.min(w, h));
  return r >= 1.2 && r <= 1.55;
};

/**
 * Whether an image is too coarse for OCR, before reading it: by the resolution its header gives, or, without
 * one, by its size when it is shaped like a page (the long side of a page is about 11 inches).
 */
export function upscalePlan(frame: ImageFrame, maxPixels: number): UpscalePlan | null {
  const dpis = [frame.dpiX, frame.dpiY].filter((d): d is number => !!d);
  let dpi: number | null = dpis.length ? Math.min(...dpis) : null;
  let reason: UpscalePlan['reason'] = 'dpi';
  if (dpi === null && frame.width && frame.height && pageShaped(frame.width, frame.height)) {
    dpi = Math.round(Math.max(frame.width, frame.height) / 11);
    reason = 'page-size';
  }
  if (dpi === null || dpi >= MIN_OCR_DPI) return null;
  return { factor: fitFactor(TARGET_OCR_DPI / dpi, frame, maxPixels), dpi, reason };
}

/** The enlargement, lowered so that the result stays within the pixel caps. */
function fitFactor(wanted: number, frame: { width: number; height: number }, maxPixels: number): number {
  const cap = Math.sqrt(Math.min(maxPixels, MAX_UPSCALED_PIXELS) / Math.max(1, frame.width * frame.height));
  return Math.round(Math.max(1, Math.min(MAX_UPSCALE, wanted, cap)) * 100) / 100;
}

/** Writes the image enlarged `factor` times (smoothed) as a PNG in `dir`; returns its path and size. */
async function upscaled(bytes: Buffer, factor: number, dir: string): Promise<{ path: string; width: number; height: number }> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const img = await loadImage(bytes);
  const width = Math.round(img.width * factor);
  const height = Math.round(img.height * factor);
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, width, height);
  g.imageSmoothingEnabled = true;
  g.imageSmoothingQuality = 'high';
  g.drawImage(img, 0, 0, width, height);
  const out = path.join(dir, 'upscaled.png');
  await fs.writeFile(out, await canvas.encode('png'));
  return { path: out, width, height };
}

/** 400, 2.5 */
const megapixels = (n: number) => (n / 1e6).toLocaleString('en', { maximumFractionDigits: n >= 1e7 ? 0 : 1 });

/** `defaultLanguage`: the OCR language(s) of a read that names none (the shared ocr.language, QUIRE_OCR_LANGUAGE). */
export async function readImage(ctx: Pick<PluginContext, 'ocr'>, input: ReaderInput, options: ReadOptions, defaultLanguage: string): Promise<ParsedDocument> {
  options.signal?.throwIfAborted();
  const limits = readLimits(options);
  const builder = new DocumentBuilder(input.documentId, input.name, input.format);
  const head = await fs.readFile(input.path);
  const info = imageInfo(head);
  const format = info.format === 'unknown' ? input.format : info.format;
  builder.metadata.imageFormat = info.format;
  // refuse from the header alone, before anything decodes the pixels
  if (!info.frames.length || info.frames.some((f) => !f.width || !f.height)) {
    throw errors.processing(`${format} could not be read: the image header is damaged or missing (no image size)`);
  }
  if (info.frames.length > limits.pages) {
    throw errors.unprocessable(`${format} exceeds ${limits.pages.toLocaleString('en')} pages (it has ${info.frames.length.toLocaleString('en')} images)`, { limit_pages: limits.pages });
  }
  for (const f of info.frames) {
    if (f.width * f.height > limits.imagePixels) {
      throw errors.unprocessable(
        `${format} image of ${f.width.toLocaleString('en')} × ${f.height.toLocaleString('en')} pixels (${megapixels(f.width * f.height)} megapixels) exceeds the limit of ${megapixels(limits.imagePixels)} megapixels`,
        { limit_pixels: limits.imagePixels },
      );
    }
  }
  let frames: ImageFrame[] = info.frames;
  if (options.maxPages && options.maxPages > 0) frames = frames.slice(0, options.maxPages);
  const scaleOf = (f: ImageFrame | undefined) => 72 / (f?.dpiX ?? 72);

  const blankPages = (message: string, code: string) => {
    frames.forEach((f, i) => {
      const k = scaleOf(f);
      builder.addPage({ number: i + 1, width: f.width * k, height: f.height * k, ocr: false, confidence: 0 });
    });
    builder.issue({ code, stage: 'ocr', message });
    options.onProgress?.(1);
    return builder.build();
  };

  if (options.ocr?.enabled === false) return blankPages('OCR is disabled: the text of the image was not read', 'OCR_DISABLED');
  const ocr = ctx.ocr;
  if (!ocr) return blankPages('No OCR engine is available: the text of the image was not read', 'OCR_UNAVAILABLE');
  if (options.ocr?.defer) {
    // every page of an image is read by OCR: left to the pipeline's ocr stage, which reads it again with OCR
    frames.forEach((f, i) => {
      const k = scaleOf(f);
      builder.addPage({ number: i + 1, width: f.width * k, height: f.height * k, ocr: false, confidence: 0 });
    });
    builder.metadata[OCR_PENDING_KEY] = frames.map((_, i) => i + 1);
    options.onProgress?.(1);
    return builder.build();
  }

  const single = info.frames.length === 1;
  const decodable = single && DECODABLE.has(info.format);
  const first = frames[0]!;
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-image-'));
  try {
    const recognize = async (file: string, dpi: number | undefined): Promise<MultiPageResult> => {
      try {
        return (await ocr.recognize(file, { language: options.ocr?.language || defaultLanguage, signal: options.signal, dpi })) as MultiPageResult;
      } catch (e) {
        if (isQuireError(e) && e.code === 'SERVICE_UNAVAILABLE') throw Object.assign(e, { ocrUnavailable: true });
        throw e;
      }
    };
    // a coarse image is enlarged before OCR (tesseract garbles text a few pixels high)
    let plan = upscalePlan(first, limits.imagePixels);
    let ocrPath = input.path;
    let result: MultiPageResult;
    try {
      if (plan && plan.factor > 1.2 && decodable) {
        ocrPath = (await upscaled(head, plan.factor, tmp)).path;
        result = await recognize(ocrPath, Math.round(plan.dpi * plan.factor));
      } else {
        result = await recognize(input.path, first.dpiX ?? undefined);
        // no resolution to go by: judge by the height of the text lines OCR found
        if (!plan && decodable && result.lines?.length) {
          const lineHeight = median(result.lines.map((l) => l.bbox.height * ((first.width || result.width) / (result.width || first.width || 1))));
          if (lineHeight > 0 && lineHeight < MIN_LINE_PX) {
            const factor = fitFactor(TARGET_LINE_PX / lineHeight, first, limits.imagePixels);
            if (factor > 1.2) {
              options.signal?.throwIfAborted();
              ocrPath = (await upscaled(head, factor, tmp)).path;
              const again = await recognize(ocrPath, first.dpiX ? Math.round(first.dpiX * factor) : undefined);
              if ((again.confidence ?? 0) >= (result.confidence ?? 0) || again.words.length > result.words.length) {
                result = again;
                plan = { factor, dpi: Math.round(lineHeight), reason: 'glyph-height' };
              }
            }
          }
        }
      }
    } catch (e) {
      if ((e as { ocrUnavailable?: boolean }).ocrUnavailable) return blankPages((e as Error).message, 'OCR_UNAVAILABLE');
      throw e;
    }
    if (plan) {
      const upscaledBy = ocrPath !== input.path ? plan.factor : 1;
      const what =
        plan.reason === 'glyph-height'
          ? `its text is only about ${plan.dpi} pixels high`
          : plan.reason === 'page-size'
            ? `it has no resolution information and at ${first.width} × ${first.height} pixels for a page it is about ${plan.dpi} dpi`
            : `it is ${plan.dpi} dpi`;
      builder.issue({
        code: upscaledBy > 1 ? 'LOW_RESOLUTION_UPSCALED' : 'LOW_RESOLUTION',
        stage: 'ocr',
        page: 1,
        message:
          upscaledBy > 1
            ? `The image is too coarse for reliable OCR (${what}): it was enlarged ${upscaledBy}× before OCR. The text may still have errors; a scan at ${TARGET_OCR_DPI} dpi reads best.`
            : `The image is too coarse for reliable OCR (${what}); the text may have errors. A scan at ${TARGET_OCR_DPI} dpi reads best.`,
      });
      builder.metadata.ocrUpscale = upscaledBy;
    }

    if (options.ocr?.agentic) {
      // agentic OCR: a single decodable image read a second time, enlarged half as much again (within the
      // pixel limit); each line is taken from the reading whose recogniser was the more confident of it
      const report: AgenticOcrReport = { pages_read: [], pages_changed: [], lines_changed: 0 };
      const base = ocrPath === input.path ? 1 : plan!.factor;
      const factor = decodable ? fitFactor(base * 1.5, first, limits.imagePixels) : 1;
      if (factor > base * 1.2 && !result.pages?.length) {
        options.signal?.throwIfAborted();
        report.pages_read.push(1);
        const again = await recognize((await upscaled(head, factor, tmp)).path, first.dpiX ? Math.round(first.dpiX * factor) : undefined).catch(() => null);
        if (again?.width && result.width) {
          const picked = pickBetterLines(result, again, result.width / again.width);
          if (picked.changed) {
            result = { ...picked.result, engine: result.engine };
            report.pages_changed.push(1);
            report.lines_changed = picked.changed;
          }
        }
      }
      builder.metadata[AGENTIC_KEY] = report;
    }
    if (result.engine) builder.metadata.ocrEngine = result.engine;
    let results: OcrResult[] = result.pages?.length ? result.pages : [result];
    if (options.maxPages && options.maxPages > 0) results = results.slice(0, options.maxPages);
    const count = Math.max(results.length, frames.length);
    const laidOut: { number: number; height: number; elements: OcrElement[] }[] = [];
    for (let i = 0; i < count; i++) {
      options.signal?.throwIfAborted();
      const r = results[i];
      const f = frames[i] ?? { width: r?.width ?? 0, height: r?.height ?? 0, dpiX: frames[0]?.dpiX ?? null, dpiY: null };
      const k = scaleOf(f);
      const widthPx = f.width || r?.width || 0;
      const heightPx = f.height || r?.height || 0;
      // OCR boxes are in the pixels tesseract saw (an enlarged image has more); scale them to the header's.
      const kx = r && r.width && widthPx ? (widthPx / r.width) * k : k;
      builder.addPage({
        number: i + 1,
        width: widthPx * k,
        height: heightPx * k,
        ocr: true,
        confidence: r?.confidence ?? 0,
        words: r ? ocrWordsToPoints(r.words, kx) : [],
      });
      if (!r) continue;
      // ruled tables: lines found in the pixels of a single-frame image (in the image's own pixels)
      const rules = count === 1 && decodable ? await imageRules(head, limits.imagePixels).catch(() => []) : [];
      laidOut.push({ number: i + 1, height: heightPx * k, elements: layoutOcrPage(r.lines, { page: i + 1, scale: kx, rules: scaleRules(rules, k) }) });
      options.onProgress?.((i + 1) / count, { done: i + 1, total: count });
    }
    // running heads, footers and page numbers of a multi-page scan, by repetition across its pages
    markOcrFurniture(laidOut);
    for (const p of laidOut) {
      let prev: string | null = null;
      for (const e of p.elements) {
        if (e.kind === 'table') {
          builder.addTable({ ...e.table, page: p.number });
          prev = 'table';
        } else {
          builder.addBlock(e.block, prev === 'list_item' && e.block.type === 'list_item' ? '\n' : '\n\n');
          prev = e.block.type;
        }
      }
    }
    return builder.build();
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

export default definePlugin({
  kind: 'reader',
  name: 'image',
  core: '^1',
  description: 'Images (png, jpg, gif, bmp, tiff incl. multi-page) through the OCR plugin.',
  formats: builtinFormats(...IMAGE_FORMATS),
  /** none: OCR languages come with each read, the OCR plugin has its own options */
  options: z.strictObject({}),
  uses: ['ocr?'],
  shared: ['ocr.language'],
  create(ctx) {
    const reader: Omit<ReaderPlugin, 'formats'> = {
      read: (input, options) => readImage(ctx, input, options, ctx.shared['ocr.language']),
      // every page of an image is read by OCR: the pages a deferred read left are the image's, read as read() does
      async ocrPages(input, pages, options) {
        const doc = await readImage(ctx, input, { ...options, ocr: { ...options.ocr, defer: false } }, ctx.shared['ocr.language']);
        const wanted = new Set(pages);
        return { ...doc, pages: doc.pages.filter((p) => wanted.has(p.number)), blocks: doc.blocks.filter((b) => wanted.has(b.page)) };
      },
      async health() {
        const ocr = ctx.ocr;
        if (!ocr) return { ok: false, message: 'no OCR plugin: images are read without text' };
        return ocr.health ? ocr.health() : { ok: true };
      },
    };
    return reader;
  },
});
