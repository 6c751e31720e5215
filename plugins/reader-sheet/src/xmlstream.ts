/**
 * Streaming XML for large parts (worksheets, shared strings), on saxes: text is pushed in chunks as it
 * inflates and start tags, end tags and (when asked for) text come out as they are complete. Names keep
 * their prefix (namespaces are not processed: use localName); attributes are saxes' name → value object
 * (use attr). Well-formedness errors, undefined entities and DTDs (Office never writes one) throw
 * XmlScanError. Text and attribute values come entity-decoded from saxes: decodeXml only undoes OOXML's
 * _xHHHH_ escapes.
 */
import { SaxesParser } from 'saxes';
import type { SaxesTagPlain } from 'saxes';
import { XmlScanError } from '@quire/office';

/** Attributes of a start tag: qualified name → decoded value. */
export type XmlAttrs = Record<string, string>;

export interface XmlHandler {
  /** a start tag; `empty` for <x/>, which gets no close() */
  open(name: string, attrs: XmlAttrs, empty: boolean): void;
  close(name: string): void;
  /** text between tags (CDATA included), possibly in several pieces; only called while `wantText` is true */
  text(text: string): void;
}

/**
 * Longest stretch of input without an event (a tag, comment, CDATA section, DOCTYPE or text run saxes is
 * still buffering): past it the part is refused.
 */
const MAX_PENDING = 1024 * 1024;
/** Strings are written to saxes in slices of this many characters, so that MAX_PENDING is checked during a large push. */
const SLICE = 256 * 1024;

const DTD = 'a DTD or markup declaration, which Office files never contain';

export class XmlTokenizer {
  private readonly parser = new SaxesParser({ xmlns: false, position: false });
  private readonly decoder = new TextDecoder('utf-8');
  /** parser.position at the last event */
  private mark = 0;
  private want = false;

  constructor(private readonly h: XmlHandler) {
    const p = this.parser;
    const seen = () => {
      this.mark = p.position;
    };
    p.on('opentag', (tag: SaxesTagPlain) => {
      this.mark = p.position;
      h.open(tag.name, tag.attributes, tag.isSelfClosing);
    });
    p.on('closetag', (tag: SaxesTagPlain) => {
      this.mark = p.position;
      if (!tag.isSelfClosing) h.close(tag.name);
    });
    p.on('cdata', (text) => {
      this.mark = p.position;
      if (this.want) h.text(text);
    });
    p.on('comment', seen);
    p.on('processinginstruction', seen);
    p.on('xmldecl', seen);
    p.on('doctype', () => {
      throw new XmlScanError(DTD);
    });
    p.on('error', (e) => {
      throw new XmlScanError(scanMessage(e.message));
    });
  }

  /** Set by the handler while it wants the text of the current element (saxes does not even collect text otherwise). */
  get wantText(): boolean {
    return this.want;
  }

  set wantText(on: boolean) {
    if (on === this.want) return;
    this.want = on;
    if (on) {
      this.parser.on('text', (text) => {
        this.mark = this.parser.position;
        this.h.text(text);
      });
    } else this.parser.off('text');
  }

  /** Feeds UTF-8 bytes. */
  pushBytes(chunk: Uint8Array): void {
    this.push(this.decoder.decode(chunk, { stream: true }));
  }

  push(chunk: string): void {
    for (let at = 0; at < chunk.length; at += SLICE) {
      this.parser.write(chunk.length <= SLICE ? chunk : chunk.slice(at, at + SLICE));
      if (this.parser.position - this.mark > MAX_PENDING) throw new XmlScanError(`a tag or text longer than ${MAX_PENDING / 1048576} MB`);
    }
  }

  end(): void {
    const tail = this.decoder.decode();
    if (tail) this.push(tail);
    this.parser.close();
  }
}

/** saxes' message without its position, in words that name the problem for a user. */
function scanMessage(m: string): string {
  const msg = m.replace(/^(?:[^:]*:)?\d+:\d+: /, '').replace(/\.$/, '');
  if (msg === 'undefined entity') return 'an unknown entity reference (only the predefined XML entities are allowed)';
  if (/^incorrect syntax|doctype/i.test(msg)) return DTD;
  return msg;
}

/** 'x:c' → 'c' */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The value of attribute `name` (exact qualified name), _xHHHH_ escapes decoded; undefined when absent. */
export function attr(attrs: XmlAttrs, name: string): string | undefined {
  const v = attrs[name];
  return typeof v === 'string' ? decodeXml(v) : undefined;
}

/** Decodes the _xHHHH_ escapes of OOXML strings in text that saxes has already entity-decoded. */
export function decodeXml(s: string): string {
  return s.indexOf('_x') < 0 ? s : s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}
