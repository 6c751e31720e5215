/** HTML files: charset from BOM / meta / detection, then the shared HTML walker (readable text only). */
import { DocumentBuilder, readLimits } from '@quire/core';
import type { ParsedDocument, ReadLimits } from '@quire/core';
import { decodeText, encodingMetadata } from '@quire/text';
import { HtmlWalker } from './html-walker.js';
import { PagedSink } from './sink.js';
import { NOMINAL_PAGE, checkAbort } from './util.js';

export interface HtmlRead {
  bytes: Uint8Array;
  id: string;
  name: string;
  format: string;
  signal?: AbortSignal;
  limits?: Partial<ReadLimits>;
}

/** charset declared in the first 4 KB (<meta charset> or http-equiv content-type). */
function declaredCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('latin1');
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head) ?? /<\?xml[^>]+encoding\s*=\s*["']([\w:.-]+)/i.exec(head);
  return m ? m[1]! : null;
}

export async function readHtml(input: HtmlRead): Promise<ParsedDocument> {
  const decoded = decodeText(input.bytes, declaredCharset(input.bytes));
  const { text } = decoded;
  checkAbort(input.signal);
  const builder = new DocumentBuilder(input.id, input.name, input.format);
  builder.metadata = encodingMetadata(decoded);
  const sink = new PagedSink(builder, NOMINAL_PAGE, undefined, { pages: readLimits({ limits: input.limits }).pages, label: input.format });
  new HtmlWalker(sink, {
    onTitle: (title) => (builder.metadata.title = title),
    checkAbort: () => checkAbort(input.signal),
  }).walkHtml(text);
  return builder.build();
}
