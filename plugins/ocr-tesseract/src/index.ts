import { definePlugin } from '@quire/core';
import type { OcrPlugin } from '@quire/core';
import { Tesseract } from './tesseract.js';

export { Tesseract, Limiter, parseTsv, parseOsd, TESSERACT_MISSING, LANGUAGE_PATTERN } from './tesseract.js';
export type { TesseractResult, TesseractConfig, OcrLine, OsdResult } from './tesseract.js';

/**
 * The OCR plugin instance: OcrPlugin, plus `detectOrientation` (readers use it, when present, to turn
 * scanned pages upright) and the engine itself.
 */
export interface TesseractOcrPlugin extends OcrPlugin {
  readonly engine: Tesseract;
  detectOrientation(imagePath: string, options?: { signal?: AbortSignal }): Promise<{ rotate: number; confidence: number } | null>;
}

export default definePlugin({
  kind: 'ocr',
  name: 'tesseract',
  core: '^1',
  description: 'OCR with the system tesseract binary (TSV words, boxes, confidences).',
  create(ctx) {
    const ocr = (ctx.config.ocr ?? {}) as { concurrency?: number; language?: string; tesseractPath?: string };
    const opts = ctx.options as { binary?: unknown; concurrency?: unknown };
    const engine = new Tesseract({
      binary: typeof opts.binary === 'string' && opts.binary ? opts.binary : ocr.tesseractPath || 'tesseract',
      concurrency: Number(opts.concurrency ?? ocr.concurrency ?? 1) || 1,
      language: ocr.language || 'eng',
    });
    const plugin: TesseractOcrPlugin = {
      engine,
      recognize: (imagePath, options) => engine.recognize(imagePath, options),
      languages: () => engine.languages(),
      detectOrientation: (imagePath, options) => engine.detectOrientation(imagePath, options),
      health: () => engine.health(),
    };
    return plugin;
  },
});
