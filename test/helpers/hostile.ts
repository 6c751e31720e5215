/**
 * Hostile inputs for the hardening tests (test/e2e/hostile.test.ts), built in memory in well under a second
 * each: zip bombs (docx, xlsx, pptx packages with one huge repetitive XML part), an XML entity bomb, a sheet
 * of a million rows, a PDF of many blank pages, a PNG claiming 20000×20000 pixels, a truncated PDF,
 * encrypted PDFs (standard security handler R2, RC4 40-bit) and oversized or deeply nested JSON.
 *
 * The bombs are real: a decoder that inflates them gets every byte. A huge repetitive part is deflated by
 * compressing one ~1 MB run of the repeated unit once, with a sync flush (non-final blocks that refer only to
 * themselves), and repeating those bytes: 200 MB of XML costs ~200 KB and a few hundred milliseconds (CRC-32).
 */
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const MB = 1024 * 1024;

// ---- deflate and zip

/** A raw deflate stream (or, with method 0, the bytes stored as they are) with its CRC-32 and inflated size. */
export interface Deflated {
  data: Buffer;
  crc: number;
  size: number;
  /** 8 deflate (default), 0 stored */
  method?: 0 | 8;
}

/** An entry stored without compression. */
export function storedEntry(content: string | Uint8Array): Deflated {
  const b = bytesOf(content);
  return { data: b, crc: zlib.crc32(b) >>> 0, size: b.length, method: 0 };
}

const syncFlush = (b: Buffer, level = 9) => zlib.deflateRawSync(b, { level, finishFlush: zlib.constants.Z_SYNC_FLUSH });

/** head + unit × repeat + tail, deflated without ever building the inflated bytes. */
export function deflateRepeated(head: string, unit: string, repeat: number, tail: string): Deflated {
  const unitBuf = Buffer.from(unit);
  const perChunk = Math.max(1, Math.floor(MB / unitBuf.length));
  const chunk = Buffer.alloc(perChunk * unitBuf.length);
  for (let i = 0; i < perChunk; i++) unitBuf.copy(chunk, i * unitBuf.length);
  const chunkDeflated = syncFlush(chunk);
  const parts: Buffer[] = [];
  const headBuf = Buffer.from(head);
  parts.push(syncFlush(headBuf));
  let crc = zlib.crc32(headBuf);
  let size = headBuf.length;
  let left = repeat;
  while (left >= perChunk) {
    parts.push(chunkDeflated);
    crc = zlib.crc32(chunk, crc);
    size += chunk.length;
    left -= perChunk;
  }
  const rest = Buffer.concat([chunk.subarray(0, left * unitBuf.length), Buffer.from(tail)]);
  parts.push(zlib.deflateRawSync(rest, { level: 9 }));
  crc = zlib.crc32(rest, crc);
  size += rest.length;
  return { data: Buffer.concat(parts), crc: crc >>> 0, size };
}

/** Deflates generated text piece by piece (for large non-repetitive parts), never holding all of it. */
export function deflatePieces(pieces: Iterable<string>, level = 1): Deflated {
  const out: Buffer[] = [];
  let crc = 0;
  let size = 0;
  let pending: string[] = [];
  let pendingLen = 0;
  const flush = (last: boolean) => {
    const b = Buffer.from(pending.join(''));
    pending = [];
    pendingLen = 0;
    out.push(last ? zlib.deflateRawSync(b, { level }) : syncFlush(b, level));
    crc = zlib.crc32(b, crc);
    size += b.length;
  };
  for (const p of pieces) {
    pending.push(p);
    pendingLen += p.length;
    if (pendingLen >= 4 * MB) flush(false);
  }
  flush(true);
  return { data: Buffer.concat(out), crc: crc >>> 0, size };
}

/** The bytes of a text or a view on the bytes given (no copy: a bomb's part may be hundreds of MB). */
const bytesOf = (content: string | Uint8Array) => (typeof content === 'string' ? Buffer.from(content) : Buffer.from(content.buffer, content.byteOffset, content.byteLength));

export function deflateText(text: string | Uint8Array): Deflated {
  const b = bytesOf(text);
  return { data: zlib.deflateRawSync(b, { level: 9 }), crc: zlib.crc32(b) >>> 0, size: b.length };
}

/** A zip archive (deflate, no zip64: every entry under 4 GB inflated). */
export function zip(entries: { name: string; content: string | Uint8Array | Deflated }[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const d = typeof e.content === 'string' || e.content instanceof Uint8Array ? deflateText(e.content) : e.content;
    if (d.size >= 0xffffffff || d.data.length >= 0xffffffff) throw new Error(`${e.name}: too large for a zip without zip64`);
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(d.method ?? 8, 8); // deflate or stored
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // date 1980-01-01
    local.writeUInt32LE(d.crc, 14);
    local.writeUInt32LE(d.data.length, 18);
    local.writeUInt32LE(d.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4); // made by
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(d.method ?? 8, 10);
    cd.writeUInt16LE(0, 12);
    cd.writeUInt16LE(0x21, 14);
    cd.writeUInt32LE(d.crc, 16);
    cd.writeUInt32LE(d.data.length, 20);
    cd.writeUInt32LE(d.size, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    locals.push(local, name, d.data);
    central.push(cd, name);
    offset += local.length + name.length + d.data.length;
  }
  const cdSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}

// ---- OOXML packages

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

const contentTypes = (overrides: [string, string][]) =>
  `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`).join('')}</Types>`;
const rels = (items: [string, string, string][]) =>
  `${XML}<Relationships xmlns="${PKG_REL}">${items.map(([id, type, target]) => `<Relationship Id="${id}" Type="${type}" Target="${target}"/>`).join('')}</Relationships>`;

/** The parts of a docx around word/document.xml. */
function docxPackage(document: string | Deflated): Buffer {
  return zip([
    { name: '[Content_Types].xml', content: contentTypes([['/word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml']]) },
    { name: '_rels/.rels', content: rels([['rId1', `${REL}/officeDocument`, 'word/document.xml']]) },
    { name: 'word/_rels/document.xml.rels', content: rels([]) },
    { name: 'word/document.xml', content: document },
  ]);
}

const DOCX_HEAD = `${XML}<w:document xmlns:w="${W}"><w:body><w:p>`;
const DOCX_RUN = '<w:r><w:t>a</w:t></w:r>';
const DOCX_TAIL = '</w:p><w:sectPr/></w:body></w:document>';

/** A docx whose document.xml inflates to about `inflatedBytes` of `<w:r><w:t>a</w:t></w:r>` (one paragraph). */
export function docxBomb(inflatedBytes = 200 * MB): Buffer {
  return docxPackage(deflateRepeated(DOCX_HEAD, DOCX_RUN, Math.ceil(inflatedBytes / DOCX_RUN.length), DOCX_TAIL));
}

/** The same package with a few runs: it must read fine (the bomb is refused for its size, not its shape). */
export function docxSmall(text = 'Harmless control paragraph'): Buffer {
  return docxPackage(`${DOCX_HEAD}<w:r><w:t>${text}</w:t></w:r>${DOCX_TAIL}`);
}

/** Billion laughs: ten levels of ten entity references, 10^9 × "lol" if expanded, in a docx's document.xml. */
export function docxEntityBomb(): Buffer {
  const levels = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) levels.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  const doc = `${XML}<!DOCTYPE w:document [\n${levels.join('\n')}\n]>\n<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>Before &lol9; after</w:t></w:r></w:p><w:sectPr/></w:body></w:document>`;
  return docxPackage(doc);
}

function xlsxPackage(sheet: string | Deflated): Buffer {
  return zip([
    {
      name: '[Content_Types].xml',
      content: contentTypes([
        ['/xl/workbook.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'],
        ['/xl/worksheets/sheet1.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml'],
      ]),
    },
    { name: '_rels/.rels', content: rels([['rId1', `${REL}/officeDocument`, 'xl/workbook.xml']]) },
    { name: 'xl/workbook.xml', content: `${XML}<workbook xmlns="${S}" xmlns:r="${R}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', content: rels([['rId1', `${REL}/worksheet`, 'worksheets/sheet1.xml']]) },
    { name: 'xl/worksheets/sheet1.xml', content: sheet },
  ]);
}

const SHEET_HEAD = `${XML}<worksheet xmlns="${S}" xmlns:r="${R}"><sheetData>`;
const SHEET_TAIL = '</sheetData></worksheet>';
const SHEET_ROW = '<row><c t="inlineStr"><is><t>a</t></is></c></row>';

/** An xlsx whose sheet inflates to about `inflatedBytes` of identical rows (no row numbers: each row follows the last). */
export function xlsxBomb(inflatedBytes = 200 * MB): Buffer {
  return xlsxPackage(deflateRepeated(SHEET_HEAD, SHEET_ROW, Math.ceil(inflatedBytes / SHEET_ROW.length), SHEET_TAIL));
}

/** A sheet of `rows` numbered rows × `cols` columns (a number, then text), generated and deflated piece by piece. */
export function xlsxRows(rows: number, cols = 2): Buffer {
  const letters = (i: number) => {
    let s = '';
    for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    return s;
  };
  const colNames = Array.from({ length: cols }, (_, i) => letters(i));
  function* pieces() {
    yield SHEET_HEAD;
    for (let r = 1; r <= rows; r++) {
      let row = `<row r="${r}">`;
      for (let c = 0; c < cols; c++) row += c === 0 ? `<c r="${colNames[c]}${r}"><v>${r}</v></c>` : `<c r="${colNames[c]}${r}" t="inlineStr"><is><t>r${r}c${c}</t></is></c>`;
      yield `${row}</row>`;
    }
    yield SHEET_TAIL;
  }
  return xlsxPackage(deflatePieces(pieces()));
}

function pptxPackage(slide: string | Deflated): Buffer {
  return zip([
    {
      name: '[Content_Types].xml',
      content: contentTypes([
        ['/ppt/presentation.xml', 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml'],
        ['/ppt/slides/slide1.xml', 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml'],
      ]),
    },
    { name: '_rels/.rels', content: rels([['rId1', `${REL}/officeDocument`, 'ppt/presentation.xml']]) },
    { name: 'ppt/presentation.xml', content: `${XML}<p:presentation xmlns:a="${A}" xmlns:r="${R}" xmlns:p="${P}"><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>` },
    { name: 'ppt/_rels/presentation.xml.rels', content: rels([['rId2', `${REL}/slide`, 'slides/slide1.xml']]) },
    { name: 'ppt/slides/_rels/slide1.xml.rels', content: rels([]) },
    { name: 'ppt/slides/slide1.xml', content: slide },
  ]);
}

const SLIDE_HEAD = `${XML}<p:sld xmlns:a="${A}" xmlns:r="${R}" xmlns:p="${P}"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/><p:sp><p:nvSpPr><p:cNvPr id="2" name="Text"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p>`;
const SLIDE_RUN = '<a:r><a:t>a</a:t></a:r>';
const SLIDE_TAIL = '</a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>';

/** A pptx whose one slide inflates to about `inflatedBytes` of `<a:r><a:t>a</a:t></a:r>`. */
export function pptxBomb(inflatedBytes = 200 * MB): Buffer {
  return pptxPackage(deflateRepeated(SLIDE_HEAD, SLIDE_RUN, Math.ceil(inflatedBytes / SLIDE_RUN.length), SLIDE_TAIL));
}

export function xlsxSmall(): Buffer {
  return xlsxPackage(`${SHEET_HEAD}<row r="1"><c r="A1" t="inlineStr"><is><t>Harmless</t></is></c><c r="B1"><v>42</v></c></row>${SHEET_TAIL}`);
}

export function pptxSmall(text = 'Harmless control slide'): Buffer {
  return pptxPackage(`${SLIDE_HEAD}<a:r><a:t>${text}</a:t></a:r>${SLIDE_TAIL}`);
}

// ---- PDF

/** `pages` empty pages (pdf-lib). */
export async function blankPagesPdf(pages = 1000): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < pages; i++) pdf.addPage([612, 792]);
  return pdf.save();
}

/** A text PDF of `pages` pages cut after `keep` of its bytes (no xref, no trailer, a stream cut short). */
export async function truncatedPdf(pages = 6, keep = 0.55): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const page = pdf.addPage([612, 792]);
    for (let l = 0; l < 30; l++) page.drawText(`Page ${i + 1} line ${l + 1}: the quarterly report continues here.`, { x: 72, y: 720 - l * 20, size: 11, font });
  }
  const bytes = await pdf.save({ useObjectStreams: false });
  return bytes.subarray(0, Math.floor(bytes.length * keep));
}

const PDF_PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

const md5 = (...parts: Uint8Array[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};
const padPassword = (pw: string) => Buffer.concat([Buffer.from(pw, 'latin1'), PDF_PAD]).subarray(0, 32);

/**
 * A one-page PDF encrypted with the standard security handler, revision 2 (RC4, 40-bit key), written by hand
 * (pdf-lib cannot encrypt). With a user password it cannot be opened without it; with only an owner
 * password (userPassword '') any reader may open and decrypt it.
 */
export function encryptedPdf(opts: { userPassword: string; ownerPassword: string; text?: string }): Buffer {
  const text = opts.text ?? 'Quarterly figures are confidential';
  const id = createHash('md5').update(`quire-hostile-${opts.userPassword}-${opts.ownerPassword}`).digest();
  const permissions = -44; // print, copy etc. not granted; the value only enters the key
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(permissions);
  const O = rc4(md5(padPassword(opts.ownerPassword || opts.userPassword)).subarray(0, 5), padPassword(opts.userPassword)); // algorithm 3
  const key = md5(padPassword(opts.userPassword), O, pBytes, id).subarray(0, 5); // algorithm 2
  const U = rc4(key, PDF_PAD); // algorithm 4
  const objectKey = (num: number, gen: number) => md5(key, Buffer.from([num & 255, (num >> 8) & 255, (num >> 16) & 255, gen & 255, (gen >> 8) & 255])).subarray(0, 10);
  const content = Buffer.from(`BT /F1 24 Tf 72 700 Td (${text}) Tj ET`, 'latin1');
  const encrypted = rc4(objectKey(5, 0), content);
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'),
    Buffer.concat([Buffer.from(`<< /Length ${encrypted.length} >>\nstream\n`), encrypted, Buffer.from('\nendstream')]),
    Buffer.from(`<< /Filter /Standard /V 1 /R 2 /O <${O.toString('hex')}> /U <${U.toString('hex')}> /P ${permissions} >>`),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    offset += obj.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 6 0 R /ID [<${id.toString('hex')}> <${id.toString('hex')}>] >>\nstartxref\n${offset}\n%%EOF\n`;
  parts.push(Buffer.from(xref + trailer));
  return Buffer.concat(parts);
}

// ---- images

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/**
 * A valid RGB PNG of width × height black pixels (default 20000 × 20000: 1.2 GB of pixels, about 1.2 MB of
 * file): the zlib stream of zero scanlines is built from one deflated megabyte of zeros, repeated.
 */
export function hugePng(width = 20_000, height = 20_000): Buffer {
  const rowBytes = 1 + width * 3;
  const total = rowBytes * height; // every byte 0: filter type 0 and black pixels
  const zeros = Buffer.alloc(MB);
  const chunk = syncFlush(zeros);
  const parts: Buffer[] = [Buffer.from([0x78, 0xda])];
  let left = total;
  while (left > MB) {
    parts.push(chunk);
    left -= MB;
  }
  parts.push(zlib.deflateRawSync(zeros.subarray(0, left), { level: 9 }));
  // Adler-32 of n zero bytes: a stays 1, b grows by 1 per byte
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((total % 65521) << 16) | 1) >>> 0);
  parts.push(adler);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), pngChunk('IHDR', ihdr), pngChunk('IDAT', Buffer.concat(parts)), pngChunk('IEND', Buffer.alloc(0))]);
}

// ---- JSON

/** A JSON object of about `bytes` bytes: a schema whose description is one long string. */
export function hugeJson(bytes = 16 * MB): string {
  return JSON.stringify({ name: 'huge', description: 'a'.repeat(bytes), fields: [{ name: 'total', type: 'number' }] });
}

/** `depth` nested arrays as the value of `key` in an otherwise ordinary object. */
export function deeplyNestedJson(depth = 100_000, key = 'fields', base: Record<string, unknown> = { name: 'nested' }): string {
  const head = JSON.stringify(base).slice(0, -1);
  return `${head}${head.length > 1 ? ',' : ''}"${key}":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

/** Field definitions nested `depth` deep through object properties: {name, type: object, properties: {x: {…}}}. */
export function deeplyNestedFields(depth = 100_000): string {
  let inner = '{"type":"string"}';
  // built as text: JSON.stringify of the object would overflow the stack of the test process itself
  const open = '{"type":"object","properties":{"x":';
  inner = `${open.repeat(depth)}${inner}${'}}'.repeat(depth)}`;
  return `[{"name":"deep","type":"object","properties":{"x":${inner}}}]`;
}

/**
 * A one-page PDF whose content stream (FlateDecode) inflates to `inflatedBytes` of one text string: a flate
 * bomb of about 1 KB per inflated MB. The zlib wrapper's checksum is left at zero (readers do not check it).
 */
export async function pdfFlateBomb(inflatedBytes = 1536 * MB): Promise<Uint8Array> {
  const { PDFDocument, PDFName, PDFRawStream } = await import('pdf-lib');
  const unit = 'A'.repeat(1024);
  const raw = deflateRepeated('BT /F1 12 Tf 72 700 Td (', unit, Math.floor(inflatedBytes / unit.length), ') Tj ET');
  const data = Buffer.concat([Buffer.from([0x78, 0x01]), raw.data, Buffer.alloc(4)]);
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const stream = PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode', Length: data.length }) as never, data);
  page.node.set(PDFName.of('Contents'), doc.context.register(stream));
  return doc.save();
}
