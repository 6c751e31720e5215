/**
 * Agentic extraction: (1) identify regions (header, parties, totals, footer, body per page; one region per
 * table) and which fields each is likely to hold (concept priors + label hits), (2) extract per region,
 * (3) merge (region priors, conflicts, arithmetic consistency of subtotal + tax = total), (4) validate
 * (types, required fields, sums, line items, date order) and lower confidence where checks fail.
 */
import type { ExtractionEvent, FieldDefinition } from '@quire/core';
import type { OfflineEngine, Outcome } from './engine.js';
import type { Candidate } from './candidates.js';
import type { Scope, Unit } from './layout.js';
import { tokenize } from '@quire/fields';
import { round } from '@quire/text';
import { fieldLabels, findLabels, regionScore, type FieldLabels } from './labels.js';
import { throwIfAborted } from './abort.js';

export type RegionKind = 'header' | 'parties' | 'body' | 'totals' | 'footer' | 'table';

export interface Region {
  id: number;
  kind: RegionKind;
  page: number;
  units: Set<number>;
  scope: Scope;
}

const TOTALS = ['total', 'subtotal', 'tax'].map((id) => fieldLabels({ name: id, type: 'number' }));
const PARTIES = ['customer', 'address'].map((id) => fieldLabels({ name: id, type: 'string' }));

function labelAtStart(u: Unit, labels: FieldLabels[]): boolean {
  const toks = tokenize(u.text);
  return labels.some((l) => findLabels(toks, l).some((h) => h.from <= 1 && regionScore(h, toks.slice(0, h.to), l) >= 0.6));
}

/** Step 1: regions of every page. */
export function identifyRegions(engine: OfflineEngine): Region[] {
  const regions: Region[] = [];
  const add = (kind: RegionKind, page: number, units: Unit[]) => {
    if (!units.length) return;
    const ids = new Set(units.map((u) => u.id));
    regions.push({ id: regions.length, kind, page, units: ids, scope: { units, has: (u) => ids.has(u.id) } });
  };
  const { index, doc } = engine;
  for (const page of doc.pages.length ? doc.pages : [{ number: 1, height: 0 }]) {
    const lines = index.unitsOnPage(page.number).filter((u) => u.kind === 'line');
    const kinds = new Map<number, RegionKind>();
    lines.forEach((u, i) => {
      const rel = u.bbox && page.height ? (u.bbox.y + u.bbox.height / 2) / page.height : (i + 0.5) / lines.length;
      kinds.set(u.id, rel < 0.3 ? 'header' : rel > 0.85 ? 'footer' : 'body');
    });
    // totals: lines starting with a total/subtotal/tax label, and the line after each
    lines.forEach((u, i) => {
      if (!labelAtStart(u, TOTALS)) return;
      kinds.set(u.id, 'totals');
      const next = lines[i + 1];
      if (next && kinds.get(next.id) !== 'totals' && !/[:：]/.test(next.text)) kinds.set(next.id, 'totals');
    });
    // parties: address blocks introduced by "Bill to", "Customer", "Address"
    lines.forEach((u, i) => {
      if (kinds.get(u.id) === 'totals' || !labelAtStart(u, PARTIES)) return;
      kinds.set(u.id, 'parties');
      for (const v of lines.slice(i + 1, i + 5)) if (v.block === u.block && kinds.get(v.id) !== 'totals') kinds.set(v.id, 'parties');
    });
    for (const kind of ['header', 'parties', 'body', 'totals', 'footer'] as RegionKind[]) add(kind, page.number, lines.filter((u) => kinds.get(u.id) === kind));
    for (const ti of new Set(index.unitsOnPage(page.number).filter((u) => u.cell).map((u) => u.cell!.table))) {
      add('table', page.number, index.cellsOf(ti));
    }
  }
  return regions;
}

const PRIOR: Record<string, RegionKind[]> = {
  header: ['header', 'parties', 'body'],
  parties: ['parties', 'header', 'body'],
  totals: ['totals', 'table', 'body'],
  footer: ['footer', 'body', 'header'],
  table: ['table'],
};

/** Regions a field is looked for in: its concept's usual regions plus every region holding its label. */
export function targetRegions(engine: OfflineEngine, field: FieldDefinition, regions: Region[]): Region[] {
  if (field.type === 'array' && field.items?.type === 'object') return regions.filter((r) => r.kind === 'table').concat(regions.filter((r) => r.kind === 'body'));
  const labels = fieldLabels(field);
  const prior = PRIOR[labels.concept?.region ?? ''] ?? [];
  const hit = new Set<number>();
  for (const r of regions) {
    for (const u of r.scope.units) {
      const toks = engine.index.tokensOf(u);
      if (findLabels(toks, labels).some((h) => h.score >= 0.6)) {
        hit.add(r.id);
        break;
      }
    }
  }
  const chosen = regions.filter((r) => hit.has(r.id) || prior.includes(r.kind));
  return chosen.length ? chosen : regions;
}

interface Ctx {
  engine: OfflineEngine;
  fields: FieldDefinition[];
  emit: (e: ExtractionEvent) => void | Promise<void>;
  signal?: AbortSignal;
}

const conceptId = (f: FieldDefinition) => fieldLabels(f).concept?.id;
const near = (a: number, b: number) => Math.abs(a - b) <= Math.max(0.011, Math.abs(b) * 0.005);

export async function runAgentic({ engine, fields, emit, signal }: Ctx): Promise<Outcome[]> {
  // (1) regions
  throwIfAborted(signal);
  const regions = identifyRegions(engine);
  const targets = new Map(fields.map((f) => [f, targetRegions(engine, f, regions)]));
  await emit({ type: 'progress', progress: 10, progress_message: `identified ${regions.length} regions (${[...new Set(regions.map((r) => r.kind))].join(', ')})` });

  // (2) extract per region
  const perField = new Map<FieldDefinition, { cands: Candidate[]; outcomes: Outcome[]; regionOf: Map<Candidate, Region> }>();
  fields.forEach((f) => perField.set(f, { cands: [], outcomes: [], regionOf: new Map() }));
  for (const [i, r] of regions.entries()) {
    throwIfAborted(signal);
    const partial: Record<string, unknown> = {};
    const filter = r.scope;
    for (const f of fields) {
      if (!targets.get(f)!.includes(r)) continue;
      const acc = perField.get(f)!;
      if (f.type === 'array' || f.type === 'object') {
        const o = engine.extract(f, filter);
        if (o.value !== null) {
          acc.outcomes.push(o);
          partial[f.name] = o.value;
        }
      } else {
        const cands = engine.candidates(f, filter);
        cands.forEach((c) => acc.regionOf.set(c, r));
        acc.cands.push(...cands);
        if (cands.length) partial[f.name] = cands[0]!.value;
      }
    }
    await emit({ type: 'chunk_done', chunk_index: i, partial_data: { region: r.kind, page: r.page, fields: partial } });
    await emit({ type: 'progress', progress: Math.round(10 + (60 * (i + 1)) / regions.length), progress_message: `extracted ${r.kind} region on page ${r.page}` });
  }

  // (3) merge
  throwIfAborted(signal);
  const outcomes = new Map<FieldDefinition, Outcome>();
  const merged = new Map<FieldDefinition, Candidate[]>();
  for (const f of fields) {
    const acc = perField.get(f)!;
    if (f.type === 'array' || f.type === 'object') {
      // rows and objects can run across regions (a table continuing into the footer area): the reading over
      // the whole document competes with the per-region ones
      const whole = engine.extract(f);
      const best = [...acc.outcomes, whole].reduce<Outcome>((a, b) => (b.confidence > a.confidence ? b : a), whole);
      outcomes.set(f, best);
      continue;
    }
    const prior = PRIOR[fieldLabels(f).concept?.region ?? ''] ?? [];
    const bySpan = new Map<string, Candidate>();
    for (const c of acc.cands) {
      const r = acc.regionOf.get(c);
      const adj = { ...c, score: c.score * (r && prior.length && !prior.includes(r.kind) ? 0.95 : 1) };
      const k = `${c.span.start}:${c.span.end}`;
      if (!bySpan.has(k) || bySpan.get(k)!.score < adj.score) bySpan.set(k, adj);
    }
    const list = [...bySpan.values()].sort((a, b) => b.score - a.score);
    merged.set(f, list);
    outcomes.set(f, engine.decide(f, list));
  }
  const byConcept = (id: string) => fields.find((f) => f.type === 'number' && conceptId(f) === id);
  const [fTotal, fSub, fTax] = [byConcept('total'), byConcept('subtotal'), byConcept('tax')];
  if (fTotal && fSub && fTax) {
    // the best-scoring combination whose numbers add up wins over independent choices
    const top = (f: FieldDefinition) => distinct(merged.get(f) ?? [], engine, f).slice(0, 4);
    let best: { t: Candidate; s: Candidate; x: Candidate; score: number } | undefined;
    for (const t of top(fTotal)) for (const s of top(fSub)) for (const x of top(fTax)) {
      if (!near(Number(s.value) + Number(x.value), Number(t.value))) continue;
      const score = t.score + s.score + x.score;
      if (!best || score > best.score) best = { t, s, x, score };
    }
    if (best) {
      for (const [f, c] of [[fTotal, best.t], [fSub, best.s], [fTax, best.x]] as const) {
        const o = engine.decide(f, merged.get(f)!, c);
        o.checks.push('chosen so that subtotal + tax = total');
        outcomes.set(f, o);
      }
    }
  }
  await emit({ type: 'progress', progress: 80, progress_message: 'merged region results' });

  // (4) validate
  throwIfAborted(signal);
  validate(fields, outcomes, engine);
  await emit({ type: 'progress', progress: 90, progress_message: 'validated types, required fields and sums' });
  return fields.map((f) => outcomes.get(f)!);
}

function distinct(cands: Candidate[], engine: OfflineEngine, f: FieldDefinition): Candidate[] {
  const seen = new Set<string>();
  return cands.filter((c) => {
    const k = engine.valueKey(f, c.value);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const TYPE_OK: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  date: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v),
  array: (v) => Array.isArray(v),
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

function scale(o: Outcome, factor: number, check: string): void {
  o.confidence = Math.round(Math.max(0, Math.min(0.99, o.confidence * factor)) * 1000) / 1000;
  if (o.evidence) o.evidence = { ...o.evidence, confidence: o.confidence };
  o.checks.push(check);
}

/** Step 4: checks that lower (or, when arithmetic agrees, slightly raise) confidence. */
export function validate(fields: FieldDefinition[], outcomes: Map<FieldDefinition, Outcome>, engine: OfflineEngine): void {
  for (const f of fields) {
    const o = outcomes.get(f)!;
    if (o.value === null) {
      if (f.required) o.checks.push('required field not found');
      continue;
    }
    if (!TYPE_OK[f.type]!(o.value)) scale(o, 0.5, `value is not a ${f.type}`);
  }
  const num = (id: string) => {
    const f = fields.find((x) => x.type === 'number' && conceptId(x) === id);
    const o = f ? outcomes.get(f) : undefined;
    return o && typeof o.value === 'number' ? o : undefined;
  };
  const [total, sub, tax] = [num('total'), num('subtotal'), num('tax')];
  if (total && sub && tax) {
    const ok = near((sub.value as number) + (tax.value as number), total.value as number);
    for (const o of [total, sub, tax]) scale(o, ok ? 1.05 : 0.7, ok ? 'subtotal + tax = total' : `subtotal + tax (${sub.value} + ${tax.value}) does not equal total ${total.value}`);
  } else if (total && sub && !tax && (sub.value as number) > (total.value as number) + 0.01) {
    for (const o of [total, sub]) scale(o, 0.8, 'subtotal is larger than total');
  }
  // line items: row arithmetic and their sum against subtotal or total
  for (const f of fields) {
    const o = outcomes.get(f)!;
    if (f.type !== 'array' || f.items?.type !== 'object' || !Array.isArray(o.value)) continue;
    const props = Object.entries(f.items.properties ?? {});
    const keyOf = (id: string) => props.find(([k, d]) => d.type === 'number' && engine.itemConceptId({ ...d, name: d.name ?? k }) === id)?.[0];
    const [amountKey, qtyKey, priceKey] = [keyOf('line_total'), keyOf('quantity'), keyOf('unit_price')];
    const rows = o.value as Record<string, unknown>[];
    if (qtyKey && priceKey && amountKey) {
      const checked = rows.filter((r) => [qtyKey, priceKey, amountKey].every((k) => typeof r[k] === 'number'));
      const bad = checked.filter((r) => !near((r[qtyKey] as number) * (r[priceKey] as number), r[amountKey] as number));
      if (checked.length && bad.length) scale(o, 1 - 0.4 * (bad.length / checked.length), `${bad.length} of ${checked.length} rows: quantity × unit price ≠ amount`);
    }
    const sumKey = amountKey ?? priceKey;
    const target = sub ?? total;
    if (sumKey && target) {
      const sum = rows.reduce((a, r) => a + (typeof r[sumKey] === 'number' ? (r[sumKey] as number) : 0), 0);
      const ok = near(sum, target.value as number) || (!!total && near(sum, total.value as number));
      scale(o, ok ? 1.05 : 0.85, ok ? `line items add up to ${target === sub ? 'the subtotal' : 'the total'}` : `line items add up to ${round(sum)}, not ${target.value}`);
    }
  }
  const date = fields.find((f) => f.type === 'date' && conceptId(f) === 'date');
  const due = fields.find((f) => f.type === 'date' && conceptId(f) === 'due_date');
  const dO = date && outcomes.get(date), uO = due && outcomes.get(due);
  if (dO && uO && typeof dO.value === 'string' && typeof uO.value === 'string' && uO.value < dO.value) {
    scale(uO, 0.8, 'due date is before the document date');
    scale(dO, 0.9, 'due date is before the document date');
  }
}
