import { definePlugin, errors, isQuireError } from '@quire/core';
import type { Logger, OcrPlugin, OcrResult } from '@quire/core';

/** An OCR engine that may also turn pages upright (tesseract's OSD). */
type Engine = OcrPlugin & { detectOrientation?: (imagePath: string, options?: { signal?: AbortSignal }) => Promise<{ rotate: number; confidence: number } | null> };

export interface OcrRouter extends OcrPlugin {
  /** the engine a request in `language` goes to: 'ppocr' when it reads every language asked for, else 'tesseract' */
  engineFor(language: string): Promise<'ppocr' | 'tesseract'>;
  detectOrientation(imagePath: string, options?: { signal?: AbortSignal }): Promise<{ rotate: number; confidence: number } | null>;
}

/**
 * The router over the two built-in engines. A request goes to PP-OCR when every language it asks for (tesseract
 * codes joined with +) is one PP-OCR reads (its `languages()`: English and Chinese), to tesseract otherwise
 * (other languages, and `auto`, where tesseract picks the script), and images PP-OCR does not decode (TIFF) to
 * tesseract too. When PP-OCR cannot run (its plugin did not
 * start, the models or onnxruntime cannot be loaded) everything goes to tesseract and the reason is logged once.
 * Each result says which engine read it (`engine`).
 */
export function createRouter(engines: { tesseract?: Engine; ppocr?: Engine }, defaultLanguage: string, logger: Logger): OcrRouter {
  const { tesseract, ppocr } = engines;
  let ppocrLanguages: Promise<Set<string>> | null = null;
  /** why PP-OCR is not used (null: it is) */
  let ppocrDown: Promise<string | null> | null = null;

  const down = (reason: string) => {
    logger.warn({ reason }, `PP-OCR is unavailable: scans in English and Chinese are read by tesseract (${reason})`);
    return reason;
  };
  const ppocrState = (): Promise<string | null> => {
    if (!ppocrDown) {
      ppocrDown = !ppocr
        ? Promise.resolve(down('the ppocr plugin is not loaded or could not start'))
        : ppocr.health
          ? ppocr.health().then(
              (h) => (h.ok ? null : down(h.message ?? 'its health check failed')),
              (e: unknown) => down((e as Error)?.message ?? String(e)),
            )
          : Promise.resolve(null);
    }
    return ppocrDown;
  };
  const languageOf = (language: string | undefined) => (language || defaultLanguage).trim().toLowerCase();

  async function engineFor(language: string): Promise<'ppocr' | 'tesseract'> {
    const requested = languageOf(language);
    if (!ppocr || requested === 'auto') return 'tesseract';
    ppocrLanguages ??= ppocr.languages().then((l) => new Set(l.map((c) => c.toLowerCase())), () => new Set<string>());
    const known = await ppocrLanguages;
    if (!requested.split('+').every((code) => known.has(code))) return 'tesseract';
    return (await ppocrState()) ? 'tesseract' : 'ppocr';
  }

  const withTesseract = async (imagePath: string, options: Parameters<OcrPlugin['recognize']>[1]): Promise<OcrResult> => {
    if (!tesseract) throw errors.unavailable('No OCR engine is available: the tesseract plugin is not loaded or could not start', { ocr: 'auto' });
    return { ...(await tesseract.recognize(imagePath, options)), engine: 'tesseract' };
  };

  return {
    engineFor,
    async recognize(imagePath, options) {
      const language = languageOf(options.language);
      if ((await engineFor(language)) === 'tesseract') return withTesseract(imagePath, { ...options, language });
      try {
        return { ...(await ppocr!.recognize(imagePath, { ...options, language })), engine: 'ppocr' };
      } catch (e) {
        if (options.signal?.aborted || !isQuireError(e)) throw e;
        // an image format PP-OCR does not decode (TIFF): tesseract reads it (and its pages)
        if ((e.details as { undecodable?: boolean } | undefined)?.undecodable) return withTesseract(imagePath, { ...options, language });
        // a model or runtime that cannot be used (not a bad image): tesseract from now on
        if (!(e.code === 'SERVICE_UNAVAILABLE' && (e as { retryable?: boolean }).retryable === false)) throw e;
        ppocrDown = Promise.resolve(down(e.message));
        return withTesseract(imagePath, { ...options, language });
      }
    },
    async languages() {
      const lists = await Promise.all([tesseract?.languages().catch(() => []) ?? [], ppocr?.languages().catch(() => []) ?? []]);
      return [...new Set(lists.flat())].sort();
    },
    async warm() {
      // the engine the default language goes to loads now (PP-OCR's models); the other at its first image
      const engine = (await engineFor(languageOf(undefined))) === 'ppocr' ? ppocr : tesseract;
      await engine?.warm?.();
    },
    async detectOrientation(imagePath, options) {
      return tesseract?.detectOrientation ? tesseract.detectOrientation(imagePath, options) : null;
    },
    async health() {
      const reason = ppocr ? await ppocrState() : 'the ppocr plugin is not loaded';
      const t = tesseract?.health ? await tesseract.health().catch((e: unknown) => ({ ok: false, message: (e as Error).message })) : { ok: !!tesseract };
      const ppocrOk = !reason;
      const ppocrSays = ppocrOk ? `English and Chinese scans: ppocr` : `ppocr unavailable (${reason})`;
      return { ok: t.ok || ppocrOk, message: `${ppocrSays}; other languages${ppocrOk ? '' : ' and those'}: tesseract${t.ok ? '' : ` (unavailable: ${t.message ?? 'not loaded'})`}` };
    },
  };
}

export default definePlugin({
  kind: 'ocr',
  name: 'auto',
  core: '^1',
  description: 'OCR router: PP-OCR for scans in English and Chinese, tesseract for every other language (and when PP-OCR cannot run).',
  uses: ['ocr:tesseract?', 'ocr:ppocr?'],
  shared: ['ocr.language'],
  create(ctx) {
    const tesseract = ctx.use('ocr', 'tesseract') as Engine | undefined;
    const ppocr = ctx.use('ocr', 'ppocr') as Engine | undefined;
    if (!tesseract && !ppocr) throw errors.unavailable('the OCR router needs the tesseract or the ppocr plugin: neither is loaded');
    return createRouter({ tesseract, ppocr }, ctx.shared['ocr.language'], ctx.logger);
  },
});
