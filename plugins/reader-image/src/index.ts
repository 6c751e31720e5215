import fs from 'node:fs/promises';
import { definePlugin, DocumentBuilder, isQuireError } from '@quire/core';
import type { OcrPlugin, OcrResult, ParsedDocument, PluginContext, ReaderInput, ReaderPlugin, ReadOptions } from '@quire/core';
import { imageInfo } from './imageinfo.js';
import type { ImageFrame } from './imageinfo.js';
import { layoutOcrPage, ocrWordsToPoints } from './ocr-layout.js';
import { detectRules, scaleRules } from './rules.js';
import type { Rule } from './grid.js';

export { imageInfo } from './imageinfo.js';
export type { ImageInfo, ImageFrame } from './imageinfo.js';
export { ocrLinesToBlocks, ocrWordsToPoints, scaleBox, layoutOcrPage } from './ocr-layout.js';
export type { OcrLineInput, OcrLayoutOptions, OcrElement } from './ocr-layout.js';
export { detectRules, scaleRules } from './rules.js';
export type { PixelImage } from './rules.js';
export { isListItem, isBulletOnly, parseKeyValue, joinLines, cleanText } from './text.js';
export { buildLines, itemsText, findRuledTables, mergeIntervals, clusterValues, unionBox, toBBox, median, width, height, vOverlap, hOverlap, itemBox, round, wordsOf } from './grid.js';
export type { TextItem, Rule, TableElement, Box, Line, GridTable } from './grid.js';

export const IMAGE_FORMATS = ['png', 'jpg', 'gif', 'bmp', 'tiff'];

/** An OCR result that may carry one result per page of a multi-page image (the tesseract plugin does). */
type MultiPageResult = OcrResult & { pages?: OcrResult[] };

/** Ruling lines of an image (png, jpg, gif, bmp) in pixels; none when it cannot be decoded here. */
async function imageRules(bytes: Buffer): Promise<Rule[]> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const img = await loadImage(bytes);
  if (!img.width || !img.height || img.width * img.height > 60_000_000) return [];
  const canvas = createCanvas(img.width, img.height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, img.width, img.height);
  g.drawImage(img, 0, 0);
  const data = g.getImageData(0, 0, img.width, img.height);
  return detectRules({ data: data.data, width: img.width, height: img.height });
}

export async function readImage(ctx: Pick<PluginContext, 'tryGet'>, input: ReaderInput, options: ReadOptions): Promise<ParsedDocument> {
  options.signal?.throwIfAborted();
  const builder = new DocumentBuilder(input.documentId, input.name, input.format);
  const head = await fs.readFile(input.path);
  const info = imageInfo(head);
  builder.metadata.imageFormat = info.format;
  let frames: ImageFrame[] = info.frames.length ? info.frames : [{ width: 0, height: 0, dpiX: null, dpiY: null }];
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
  const ocr = ctx.tryGet('ocr') as OcrPlugin | undefined;
  if (!ocr) return blankPages('No OCR engine is available: the text of the image was not read', 'OCR_UNAVAILABLE');

  let result: MultiPageResult;
  try {
    result = (await ocr.recognize(input.path, { language: options.ocr?.language || 'eng', signal: options.signal, dpi: frames[0]?.dpiX ?? undefined })) as MultiPageResult;
  } catch (e) {
    if (isQuireError(e) && e.code === 'SERVICE_UNAVAILABLE') return blankPages(e.message, 'OCR_UNAVAILABLE');
    throw e;
  }
  let results: OcrResult[] = result.pages?.length ? result.pages : [result];
  if (options.maxPages && options.maxPages > 0) results = results.slice(0, options.maxPages);
  const count = Math.max(results.length, frames.length);
  for (let i = 0; i < count; i++) {
    const r = results[i];
    const f = frames[i] ?? { width: r?.width ?? 0, height: r?.height ?? 0, dpiX: frames[0]?.dpiX ?? null, dpiY: null };
    const k = scaleOf(f);
    const widthPx = f.width || r?.width || 0;
    const heightPx = f.height || r?.height || 0;
    // OCR boxes are in the pixels tesseract saw; scale them if its page size differs from the header's.
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
    // ruled tables: lines found in the pixels of a single-frame image
    const rules = count === 1 && info.format !== 'tiff' ? await imageRules(head).catch(() => []) : [];
    let prev: string | null = null;
    for (const e of layoutOcrPage(r.lines, { page: i + 1, scale: kx, rules: scaleRules(rules, kx) })) {
      if (e.kind === 'table') {
        builder.addTable({ ...e.table, page: i + 1 });
        prev = 'table';
      } else {
        builder.addBlock(e.block, prev === 'list_item' && e.block.type === 'list_item' ? '\n' : '\n\n');
        prev = e.block.type;
      }
    }
    options.onProgress?.((i + 1) / count);
  }
  return builder.build();
}

export default definePlugin({
  kind: 'reader',
  name: 'image',
  core: '^1',
  description: 'Images (png, jpg, gif, bmp, tiff incl. multi-page) through the OCR plugin.',
  create(ctx) {
    const reader: ReaderPlugin = {
      formats: IMAGE_FORMATS,
      read: (input, options) => readImage(ctx, input, options),
      async health() {
        const ocr = ctx.tryGet('ocr');
        if (!ocr) return { ok: false, message: 'no OCR plugin: images are read without text' };
        return ocr.health ? ocr.health() : { ok: true };
      },
    };
    return reader;
  },
});
