import { definePlugin, z } from '@quire/core';
import type { OcrPlugin } from '@quire/core';
import { DEFAULT_PSM, PSM_MODES, Tesseract } from './tesseract.js';

export { Tesseract, Limiter, joinSplitDecimals, PSM_MODES, DEFAULT_PSM, NARROW_ASPECT, choosePsm, imageSize, parseTsv, parseOsd, TESSERACT_MISSING, LANGUAGE_PATTERN } from './tesseract.js';
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
  options: z.strictObject({
    /** the tesseract binary (QUIRE_TESSERACT_PATH) */
    binary: z.string().min(1).default('tesseract'),
    /** tesseract processes at once (default: the shared ocr.concurrency, QUIRE_OCR_CONCURRENCY) */
    concurrency: z.number().int().min(1).max(64).optional(),
    /**
     * tesseract's page segmentation mode (QUIRE_TESSERACT_PSM): 'auto' (6, one block, on narrow images such as
     * till receipts; 3, automatic, on others), or 3 automatic, 4 one column, 6 one block, 11/12 sparse text, 1 with OSD
     */
    psm: z
      .preprocess(
        (v) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v),
        z.union([z.literal('auto'), z.number().int().refine((m) => (PSM_MODES as readonly number[]).includes(m), `auto or one of ${PSM_MODES.join(', ')}`)]),
      )
      .default(DEFAULT_PSM),
  }),
  shared: ['ocr.concurrency', 'ocr.language'],
  create(ctx) {
    const engine = new Tesseract({
      binary: ctx.options.binary,
      concurrency: ctx.options.concurrency ?? ctx.shared['ocr.concurrency'],
      language: ctx.shared['ocr.language'],
      psm: ctx.options.psm,
    });
    const plugin: TesseractOcrPlugin = {
      engine,
      recognize: async (imagePath, options) => ({ ...(await engine.recognize(imagePath, options)), engine: 'tesseract' }),
      languages: () => engine.languages(),
      detectOrientation: (imagePath, options) => engine.detectOrientation(imagePath, options),
      health: () => engine.health(),
    };
    return plugin;
  },
});
