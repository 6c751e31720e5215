/**
 * A page range of a PDF as a PDF of its own, copied losslessly with pdf-lib: page content streams, fonts,
 * images and annotations are copied as objects (no re-rendering), so text layers stay text. Form fields
 * survive too: the widgets of the copied pages bring their fields along, and the fields are listed in the new
 * file's AcroForm with the source's default appearance and resources.
 */
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFObjectCopier, PDFRef } from 'pdf-lib';

export { pdfRanges } from './pdf-ranges.js';

export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  return PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
}

/** Pages from..to (1-based, inclusive) of `src` as a new PDF file. */
export async function pdfPages(src: PDFDocument, from: number, to: number, title?: string): Promise<Uint8Array> {
  const out = await PDFDocument.create({ updateMetadata: false });
  const indices = Array.from({ length: to - from + 1 }, (_, i) => from - 1 + i);
  const pages = await out.copyPages(src, indices);
  for (const p of pages) out.addPage(p);
  keepFormFields(src, out);
  if (title) out.setTitle(title);
  return out.save({ useObjectStreams: true });
}

/** Lists the fields whose widgets are on the copied pages in the new file's AcroForm. */
function keepFormFields(src: PDFDocument, out: PDFDocument): void {
  const fields: PDFRef[] = [];
  const seen = new Set<string>();
  for (const page of out.getPages()) {
    const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
    if (!annots) continue;
    for (let i = 0; i < annots.size(); i++) {
      const ref = annots.get(i);
      if (!(ref instanceof PDFRef)) continue;
      let dict = out.context.lookupMaybe(ref, PDFDict);
      if (!dict || dict.get(PDFName.of('Subtype'))?.toString() !== '/Widget') continue;
      // the top field of the widget: follow /Parent up
      let top = ref;
      for (let depth = 0; depth < 32; depth++) {
        const parent: unknown = dict!.get(PDFName.of('Parent'));
        if (!(parent instanceof PDFRef)) break;
        const pd: PDFDict | undefined = out.context.lookupMaybe(parent, PDFDict);
        if (!pd) break;
        top = parent;
        dict = pd;
      }
      if (!seen.has(top.toString())) {
        seen.add(top.toString());
        fields.push(top);
      }
    }
  }
  if (!fields.length) return;
  const acro = out.context.obj({});
  acro.set(PDFName.of('Fields'), out.context.obj(fields));
  const srcAcro = src.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (srcAcro) {
    const copier = PDFObjectCopier.for(src.context, out.context);
    for (const key of ['DA', 'DR', 'NeedAppearances', 'Q']) {
      const v = srcAcro.get(PDFName.of(key));
      if (v) acro.set(PDFName.of(key), copier.copy(v));
    }
  }
  out.catalog.set(PDFName.of('AcroForm'), out.context.register(acro));
}
