/**
 * Page furniture of a document, once every page is laid out (before hyphen decisions and assembly): lines
 * near the top or bottom edge that repeat from page to page (findFurniture of @quire/layout) are marked
 * `furniture` (text pages) or typed header/footer (OCR pages); the parts of blocks that reached into an
 * edge (layout.ts edgeParts) are joined back, furniture left apart.
 */
import { findFurniture, furnitureSide, ocrFurnitureCandidates, unionBox } from '@quire/layout';
import type { FurnitureCandidate } from '@quire/layout';
import type { BlockInput } from '@quire/core';
import type { AssembledPage } from './assemble.js';
import type { PageElement, PartStats, TextElement } from './types.js';
import { textElement } from './layout.js';

type Candidate = FurnitureCandidate & ({ el: TextElement } | { block: BlockInput });

/** Parts joined back into one element, as the block they came from would have been. */
function joinParts(parts: TextElement[]): TextElement {
  if (parts.length === 1) {
    const { part: _part, ...el } = parts[0]!;
    return el;
  }
  const stats: PartStats = { chars: 0, bold: 0, italic: 0, sizes: [] };
  const sizes = new Map<number, number>();
  const lines: string[] = [];
  for (const p of parts) {
    const s = p.part!.stats;
    stats.chars += s.chars;
    stats.bold += s.bold;
    stats.italic += s.italic;
    for (const [k, n] of s.sizes) sizes.set(k, (sizes.get(k) ?? 0) + n);
    lines.push(...p.part!.lines);
  }
  stats.sizes = [...sizes];
  const box = unionBox(parts.map((p) => ({ x0: p.bbox.x, x1: p.bbox.x + p.bbox.width, top: p.bbox.y, bottom: p.bbox.y + p.bbox.height })));
  return textElement(lines, box, lines.length, stats, parts[0]!.part!.mark, parts[0]!.size);
}

/** Marks the page furniture of the pages and joins back the edge parts that are not furniture. */
export function setAsideFurniture(pages: AssembledPage[]): void {
  const candidates: Candidate[] = [];
  for (const p of pages) {
    if (!p) continue;
    if (p.ocr) {
      candidates.push(...ocrFurnitureCandidates(p.number, p.height, p.ocr.elements));
      continue;
    }
    for (const e of p.elements) if (e.kind === 'text' && (e.part ? e.part.lines.length === 1 : e.lines <= 2)) candidates.push({ page: p.number, text: e.text, bbox: e.bbox, pageHeight: p.height, el: e });
  }
  const withText = pages.filter((p) => p && (p.ocr ? p.ocr.elements.length : p.elements.length)).length;
  const found = findFurniture(candidates, withText);
  for (const c of found) {
    if ('el' in c) c.el.furniture = furnitureSide(c);
    else c.block.type = furnitureSide(c);
  }
  for (const p of pages) {
    if (!p || p.ocr || !p.elements.some((e) => e.kind === 'text' && e.part)) continue;
    const out: PageElement[] = [];
    for (let i = 0; i < p.elements.length; ) {
      const e = p.elements[i]!;
      if (e.kind !== 'text' || !e.part) {
        out.push(e);
        i++;
        continue;
      }
      // the parts of one block follow each other: runs of parts that are not furniture are joined
      let j = i;
      let run: TextElement[] = [];
      const flush = () => {
        if (run.length) out.push(joinParts(run));
        run = [];
      };
      while (j < p.elements.length) {
        const x = p.elements[j]!;
        if (x.kind !== 'text' || !x.part || x.part.group !== e.part.group) break;
        if (x.furniture) {
          flush();
          const { part: _part, ...el } = x;
          out.push(el);
        } else run.push(x);
        j++;
      }
      flush();
      i = j;
    }
    p.elements = out;
  }
}
