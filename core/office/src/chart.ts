/**
 * DrawingML charts (xl/charts/chartN.xml, ppt/charts/chartN.xml): the title, the chart type and the cached
 * series data (category × series values), which is what the chart shows.
 */
import { XMLParser } from 'fast-xml-parser';
import path from 'node:path';

export interface ChartInfo {
  title?: string;
  type: string;
  /** header row: '' then series names */
  header: string[];
  /** one row per category: category then the series values */
  rows: string[][];
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  isArray: (name) => ['ser', 'pt', 'p', 'r', 'lvl'].includes(name),
});

type Node = Record<string, any>;

function texts(node: unknown, out: string[] = []): string[] {
  if (node === null || node === undefined) return out;
  if (Array.isArray(node)) {
    for (const n of node) texts(n, out);
    return out;
  }
  if (typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Node)) {
      if (k === 't' || k === 'v') out.push(typeof v === 'object' && v !== null ? String((v as Node)['#text'] ?? '') : String(v));
      else if (!k.startsWith('@')) texts(v, out);
    }
  }
  return out;
}

/** Points of a str/num cache, by index. */
function cachePoints(ref: Node | undefined): Map<number, string> {
  const out = new Map<number, string>();
  if (!ref) return out;
  const cache = ref.strRef?.strCache ?? ref.numRef?.numCache ?? ref.strLit ?? ref.numLit ?? ref.multiLvlStrRef?.multiLvlStrCache?.lvl?.[0];
  for (const pt of cache?.pt ?? []) {
    const idx = Number(pt['@idx']);
    const v = pt.v;
    if (Number.isFinite(idx) && v !== undefined) out.set(idx, String(typeof v === 'object' ? (v['#text'] ?? '') : v).trim());
  }
  return out;
}

const canonical = (s: string) => {
  const n = Number(s);
  return s !== '' && Number.isFinite(n) ? String(Number(n.toPrecision(15))) : s;
};

export function parseChart(xml: string): ChartInfo | null {
  let doc: Node;
  try {
    doc = parser.parse(xml);
  } catch {
    return null;
  }
  const chart = doc?.chartSpace?.chart;
  if (!chart) return null;
  const title = chart.title ? texts(chart.title.tx ?? chart.title).join('').replace(/\s+/g, ' ').trim() || undefined : undefined;
  const plot = chart.plotArea ?? {};
  const kinds = Object.keys(plot).filter((k) => /Chart$/.test(k));
  const series: { name: string; cats: Map<number, string>; vals: Map<number, string> }[] = [];
  for (const kind of kinds) {
    const groups = Array.isArray(plot[kind]) ? plot[kind] : [plot[kind]];
    for (const g of groups) {
      for (const ser of g?.ser ?? []) {
        const name = ser.tx ? texts(ser.tx.strRef?.strCache ?? ser.tx).join(' ').trim() : '';
        series.push({ name: name || `Series ${series.length + 1}`, cats: cachePoints(ser.cat ?? ser.xVal), vals: cachePoints(ser.val ?? ser.yVal) });
      }
    }
  }
  const type = kinds.map((k) => k.replace(/3D/, ' 3D').replace(/Chart$/, '')).join('+') || 'chart';
  if (!series.length) return title ? { title, type, header: [], rows: [] } : null;
  const n = Math.max(...series.map((s) => Math.max(s.vals.size ? Math.max(...s.vals.keys()) + 1 : 0, s.cats.size ? Math.max(...s.cats.keys()) + 1 : 0)));
  const cats = series.find((s) => s.cats.size)?.cats ?? new Map<number, string>();
  const rows: string[][] = [];
  for (let i = 0; i < Math.min(n, 10000); i++) rows.push([cats.get(i) ?? String(i + 1), ...series.map((s) => canonical(s.vals.get(i) ?? ''))]);
  return { title, type, header: ['', ...series.map((s) => s.name)], rows };
}

/** Relationship targets of a .rels part: id → absolute part name. */
export function parseRels(xml: string, partName: string): Map<string, { target: string; type: string }> {
  const out = new Map<string, { target: string; type: string }>();
  const base = path.posix.dirname(partName.replace(/_rels\/[^/]+\.rels$/, 'x'));
  for (const m of xml.matchAll(/<Relationship\b([^>]*)\/?>/g)) {
    const attrs = m[1]!;
    const id = /\bId="([^"]*)"/.exec(attrs)?.[1];
    const target = /\bTarget="([^"]*)"/.exec(attrs)?.[1];
    const type = /\bType="([^"]*)"/.exec(attrs)?.[1] ?? '';
    if (!id || !target || /TargetMode="External"/.test(attrs)) continue;
    out.set(id, { target: target.startsWith('/') ? target.slice(1) : path.posix.normalize(path.posix.join(base, target)), type });
  }
  return out;
}

/** The .rels part name of a part: xl/worksheets/sheet1.xml → xl/worksheets/_rels/sheet1.xml.rels */
export const relsOf = (part: string) => `${path.posix.dirname(part)}/_rels/${path.posix.basename(part)}.rels`;
