/**
 * Plain text: encoding detection (BOM, UTF-8, chardet + iconv-lite), one page per form feed, paragraphs split
 * on blank lines, markdown-ish headings (#, setext underlines), list items and `Label: value` lines.
 */
import { DocumentBuilder, readLimits } from '@quire/core';
import type { ParsedDocument, ReadLimits } from '@quire/core';
import { decodeText, encodingMetadata } from '@quire/text';
import { PagedSink } from './sink.js';
import { NOMINAL_PAGE, checkAbort, isCaption, keyValue } from './util.js';
import { obviousHeading } from './doc.js';

export interface TxtRead {
  bytes: Uint8Array;
  id: string;
  name: string;
  format: string;
  signal?: AbortSignal;
  limits?: Partial<ReadLimits>;
  maxPages?: number;
}

const ATX = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;
const SETEXT = /^\s{0,3}(=+|-+)\s*$/;
const LIST = /^(\s*)([-*+•‣◦▪]|\d{1,3}[.)]|[a-zA-Z][.)])\s+(\S.*)$/u;

/** Splits one long hard-wrapped run of lines into paragraphs at lines clearly shorter than the wrap width. */
function splitWrapped(lines: string[]): string[][] {
  const text = lines.join('\n');
  if (lines.length < 6 || text.length < 1500) return [lines];
  const lengths = lines.map((l) => l.trim().length).sort((a, b) => a - b);
  const wrap = lengths[Math.floor(lengths.length * 0.9)]!;
  const out: string[][] = [];
  let cur: string[] = [];
  for (const line of lines) {
    cur.push(line);
    if (line.trim().length < wrap * 0.7) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Joins hard-wrapped prose with spaces; keeps short-line text (addresses, verse, tables) as lines. */
function joinLines(lines: string[]): string {
  const trimmed = lines.map((l) => l.replace(/\s+$/, ''));
  if (trimmed.length === 1) return trimmed[0]!.trim();
  const avg = trimmed.reduce((n, l) => n + l.length, 0) / trimmed.length;
  return avg >= 40 && trimmed.slice(0, -1).every((l) => l.trim().length >= 25) ? trimmed.map((l) => l.trim()).join(' ') : trimmed.map((l) => l.trim()).join('\n');
}

export async function readTxt(input: TxtRead): Promise<ParsedDocument> {
  const decoded = decodeText(input.bytes);
  const { text } = decoded;
  const builder = new DocumentBuilder(input.id, input.name, input.format);
  builder.metadata = encodingMetadata(decoded);
  const sink = new PagedSink(builder, NOMINAL_PAGE, input.maxPages, { pages: readLimits({ limits: input.limits }).pages, label: input.format });
  let last: string | null = null;
  const emit = (type: 'heading' | 'paragraph' | 'list_item' | 'key_value' | 'caption', text: string, extra: { level?: number; key?: string; value?: string } = {}) => {
    const sep = (type === 'list_item' || type === 'key_value') && last === type ? '\n' : undefined;
    sink.block({ type, text, ...extra }, sep);
    last = type;
  };

  const pages = text.split('\f');
  pages.forEach((pageText, p) => {
    if (p > 0) sink.pageBreak();
    checkAbort(input.signal);
    const groups = pageText.split(/\n[ \t]*\n/);
    for (let g = 0; g < groups.length; g++) {
      const lines = groups[g]!.split('\n').filter((l) => l.trim());
      if (!lines.length) continue;
      // a lone short line before a paragraph: "CHAPTER I", "Introduction And Scope"
      if (lines.length === 1 && !ATX.test(lines[0]!) && !LIST.test(lines[0]!)) {
        const next = groups.slice(g + 1).find((x) => x.trim());
        const level = obviousHeading(lines[0]!, next?.trim().split('\n').join(' '));
        if (level) {
          emit('heading', lines[0]!.trim(), { level });
          continue;
        }
      }
      let para: string[] = [];
      const flushPara = () => {
        if (!para.length) return;
        for (const chunk of splitWrapped(para)) {
          const pairs = chunk.map((l) => keyValue(l.trim()));
          if (chunk.length <= 30 && pairs.every(Boolean)) chunk.forEach((l, i) => emit('key_value', l.trim(), pairs[i]!));
          else {
            const text = joinLines(chunk);
            emit(isCaption(text) ? 'caption' : 'paragraph', text);
          }
        }
        para = [];
      };
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        const atx = ATX.exec(line);
        if (atx) {
          flushPara();
          emit('heading', atx[2]!, { level: atx[1]!.length });
          continue;
        }
        const next = lines[i + 1];
        if (next !== undefined && SETEXT.exec(next) && next.trim().length >= 3 && line.trim().length > 0 && !LIST.test(line)) {
          flushPara();
          emit('heading', line.trim(), { level: next.trim()[0] === '=' ? 1 : 2 });
          i++;
          continue;
        }
        const li = LIST.exec(line);
        if (li) {
          flushPara();
          let item = li[3]!.trim();
          // continuation lines indented deeper than the marker belong to the item
          while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1]!) && !LIST.test(lines[i + 1]!) && lines[i + 1]!.search(/\S/) > li[1]!.length) {
            item += ` ${lines[++i]!.trim()}`;
          }
          const depth = Math.floor(li[1]!.replace(/\t/g, '  ').length / 2);
          const marker = /^[-*+•‣◦▪]$/u.test(li[2]!) ? '-' : li[2]!;
          emit('list_item', `${marker} ${item}`, { level: depth + 1 });
          continue;
        }
        para.push(line);
      }
      flushPara();
    }
  });
  return builder.build();
}
