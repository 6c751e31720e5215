import { pluginContext, silentLogger } from '@quire/core';
import type { OcrPlugin, SharedSettings } from '@quire/core';
import pdfPlugin from '@quire/plugin-reader-pdf';
import type { PdfReader, PdfReaderOptions } from '@quire/plugin-reader-pdf';

/**
 * A PDF reader made as the registry makes it (its options through the plugin's schema, the shared settings
 * given), with `ocr` as its OCR plugin. Its workers start at the first document unless `prestart` is set.
 */
export function pdfReader(options: PdfReaderOptions = {}, more: { ocr?: OcrPlugin; shared?: Partial<SharedSettings>; plugin?: typeof pdfPlugin } = {}): PdfReader {
  const plugin = more.plugin ?? pdfPlugin;
  const ctx = pluginContext(plugin, { options: { prestart: false, ...options }, shared: more.shared, logger: silentLogger, tryGet: ((kind: string) => (kind === 'ocr' ? more.ocr : undefined)) as never });
  return plugin.create(ctx) as unknown as PdfReader;
}
