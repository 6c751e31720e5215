/**
 * A streaming XML tokenizer for large parts (worksheets, shared strings): text is pushed in chunks as it
 * inflates and start tags, end tags and (when asked for) text come out as they are complete; nothing but an
 * unfinished tag is kept between chunks. Names keep their prefix (use localName); attributes stay a raw
 * string (use attr). DTDs are refused (Office never writes one). Only the five predefined entities and
 * character references are decoded (decodeXml).
 */
import { XmlScanError } from '@quire/plugin-reader-office';

export interface XmlHandler {
  open(name: string, attrs: string, empty: boolean): void;
  close(name: string): void;
  /** text between tags, possibly in several pieces; only called while `wantText` is true */
  text(text: string): void;
}

/** Longest tag (or comment, CDATA section…) kept waiting for its end. */
const MAX_PENDING = 1024 * 1024;

export class XmlTokenizer {
  /** set by the handler while it wants the text of the current element */
  wantText = false;
  private pending = '';
  private readonly decoder = new TextDecoder('utf-8');

  constructor(private readonly h: XmlHandler) {}

  /** Feeds UTF-8 bytes. */
  pushBytes(chunk: Uint8Array): void {
    this.push(this.decoder.decode(chunk, { stream: true }));
  }

  push(chunk: string): void {
    const s = this.pending ? this.pending + chunk : chunk;
    const used = this.run(s);
    this.pending = used < s.length ? s.slice(used) : '';
    if (this.pending.length > MAX_PENDING) throw new XmlScanError(`a tag longer than ${MAX_PENDING / 1048576} MB`);
  }

  end(): void {
    const tail = this.decoder.decode();
    if (tail) this.push(tail);
    if (this.pending.trim()) throw new XmlScanError('unterminated markup at the end of the part');
  }

  /** Tokenizes `s`; returns how much of it was consumed (the rest is an unfinished tag). */
  private run(s: string): number {
    let i = 0;
    const n = s.length;
    while (i < n) {
      const lt = s.indexOf('<', i);
      if (lt < 0) {
        if (this.wantText) this.h.text(s.slice(i));
        return n;
      }
      if (lt > i && this.wantText) this.h.text(s.slice(i, lt));
      if (lt + 1 >= n) return lt;
      const c1 = s.charCodeAt(lt + 1);
      if (c1 === 0x21 /* ! */) {
        if (s.startsWith('<!--', lt)) {
          const e = s.indexOf('-->', lt + 4);
          if (e < 0) return lt;
          i = e + 3;
        } else if (s.startsWith('<![CDATA[', lt)) {
          const e = s.indexOf(']]>', lt + 9);
          if (e < 0) return lt;
          if (this.wantText) this.h.text(escapeText(s.slice(lt + 9, e)));
          i = e + 3;
        } else {
          if (lt + 9 > n) return lt;
          throw new XmlScanError('a DTD or markup declaration, which Office files never contain');
        }
        continue;
      }
      if (c1 === 0x3f /* ? */) {
        const e = s.indexOf('?>', lt + 2);
        if (e < 0) return lt;
        i = e + 2;
        continue;
      }
      // the end of the tag: the first '>' outside quotes (a walk over the tag only)
      let gt = lt + 1;
      let quote = 0;
      for (; gt < n; gt++) {
        const c = s.charCodeAt(gt);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x3e) break;
      }
      if (gt >= n) return lt;
      if (c1 === 0x2f /* / */) {
        this.h.close(s.slice(lt + 2, gt).trim());
      } else {
        const empty = s.charCodeAt(gt - 1) === 0x2f;
        const end = empty ? gt - 1 : gt;
        let sp = lt + 1;
        while (sp < end) {
          const c = s.charCodeAt(sp);
          if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) break;
          sp++;
        }
        this.h.open(s.slice(lt + 1, sp), sp < end ? s.slice(sp, end) : '', empty);
      }
      i = gt + 1;
    }
    return n;
  }
}

/** CDATA content as escaped text, so that decodeXml gives it back unchanged. */
const escapeText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** 'x:c' → 'c' */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The value of attribute `name` (exact qualified name) in a raw attribute string, decoded; undefined when absent. */
export function attr(attrs: string, name: string): string | undefined {
  let at = 0;
  for (;;) {
    at = attrs.indexOf(name, at);
    if (at < 0) return undefined;
    const before = at === 0 ? ' ' : attrs[at - 1]!;
    let p = at + name.length;
    while (attrs[p] === ' ') p++;
    if ((before === ' ' || before === '\t' || before === '\n' || before === '\r') && attrs[p] === '=') {
      p++;
      while (attrs[p] === ' ') p++;
      const quote = attrs[p];
      if (quote === '"' || quote === "'") {
        const end = attrs.indexOf(quote, p + 1);
        if (end > p) return decodeXml(attrs.slice(p + 1, end));
      }
      return undefined;
    }
    at += name.length;
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the predefined entities, character references and the _xHHHH_ escapes of OOXML strings. */
export function decodeXml(s: string): string {
  let out = s.indexOf('&') < 0 ? s : s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
      return Number.isFinite(cp) && cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
  if (out.indexOf('_x') >= 0) out = out.replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return out;
}
