/**
 * Schema suggestions for a document: the fields its layout prints (the extractor's suggestFields), merged
 * with a client's current fields, and the prebuilt or saved schema that fits the document best.
 */
import { QuireError, errors } from '@quire/core';
import type { DocumentRecord, FieldDefinition, ParsedDocument, SchemaRecord } from '@quire/core';
import { CONCEPTS, PREBUILT_SCHEMAS, conceptOf, snakeCase } from '@quire/fields';
import type { AuthInfo } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { loadOwned } from '../infra/access.js';
import { contentKey, loadParsed } from '../io/steps.js';
import { UUID, readableSchemas } from './fields.js';

export type Suggested = FieldDefinition & { suggestionReason: string };

/** A readable, completed document and its parsed content (404 / 409 otherwise). */
export async function parsedDocument(rt: Engine, auth: AuthInfo, documentId: string): Promise<{ doc: DocumentRecord; parsed: ParsedDocument }> {
  if (!UUID.test(documentId)) throw errors.validation('document_id must be a UUID', [{ field: 'document_id', message: 'must be a UUID' }]);
  const doc = await loadOwned(rt.store, 'documents', documentId, auth, 'read');
  if (doc.status !== 'completed' || !doc.content_key) throw errors.conflict(`Document ${doc.id} is ${doc.status}; it must be completed first`, { status: doc.status });
  return { doc, parsed: await loadParsed(rt, contentKey(doc.id)) };
}

export async function suggestFor(rt: Engine, parsed: ParsedDocument): Promise<Suggested[]> {
  const extractor = rt.registry.get('extractor');
  if (!extractor.suggestFields) throw new QuireError('UNPROCESSABLE', 'The active extractor plugin cannot suggest fields');
  return extractor.suggestFields(parsed);
}

/** Identity of a field for matching: its concept (invoice_number, total, ...) when it has one, else its snake_case name. */
export function fieldKey(f: FieldDefinition): string {
  return conceptOf(f)?.id ?? snakeCase(f.name);
}

/** Suggestions appended to the current fields, leaving out those the current fields already cover. */
export function mergeFields(current: FieldDefinition[], suggested: Suggested[]): { fields: FieldDefinition[]; added: number } {
  const have = new Set(current.flatMap((f) => [f.name, fieldKey(f)]));
  const names = new Set(current.map((f) => f.name));
  const added = suggested.filter((s) => !have.has(s.name) && !have.has(fieldKey(s)) && !names.has(s.name));
  return { fields: [...current, ...added], added: added.length };
}

export interface SchemaMatch {
  id: string;
  name: string;
  formType: string;
  category: string;
  fieldCount: number;
  score: number;
  matchedFields: string[];
}

/** A schema is suggested when its score reaches this and at least SUGGEST_MIN_MATCHED of its fields are labelled in the document. */
export const SUGGEST_MIN_SCORE = 0.4;
export const SUGGEST_MIN_MATCHED = 3;

const fold = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
/** Lower-case words joined by single spaces ("Invoice No." → "invoice no", "unit_price" → "unit price"). */
export const phrase = (s: string) => (fold(s.replace(/([a-z0-9])([A-Z])/g, '$1 $2')).match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');

/** How documents of the prebuilt kinds title themselves, besides the schema's name (several languages). */
const TITLES: Record<string, string[]> = {
  invoice: ['invoice', 'tax invoice', 'factuur', 'rechnung', 'facture', 'factura', 'fattura'],
  receipt: ['receipt', 'sales receipt', 'quittung', 'kassenbon', 'kassabon', 'recu', 'recibo'],
  purchase_order: ['purchase order', 'bestellung', 'inkooporder', 'bon de commande', 'orden de compra'],
  contract: ['contract', 'agreement', 'vertrag', 'overeenkomst', 'contrat', 'contrato'],
  nda: ['nda', 'non disclosure agreement', 'confidentiality agreement', 'geheimhaltungsvereinbarung'],
  resume: ['curriculum vitae', 'lebenslauf'],
  w9: ['w 9', 'request for taxpayer identification number'],
  bank_statement: ['account statement', 'kontoauszug', 'rekeningafschrift', 'releve de compte'],
  financial_statement: ['balance sheet', 'income statement', 'profit and loss', 'statement of financial position'],
};

/** The label phrases a field may be printed under: its name, its concept's labels (not the weak ones). */
function labelsOf(f: FieldDefinition): string[] {
  const own = phrase(f.name);
  const c = CONCEPTS.find((x) => x.id === snakeCase(f.name) || x.labels.some((l) => !l.startsWith('~') && phrase(l) === own));
  return [...new Set([own, ...(c?.labels ?? []).filter((l) => !l.startsWith('~')).map(phrase)])].filter(Boolean);
}

/** Words of the document with single spaces, padded, for whole-phrase lookups. */
export function documentWords(parsed: ParsedDocument): { all: string; head: string } {
  const headings = parsed.blocks.filter((b) => b.type === 'heading' || b.type === 'header').map((b) => b.text).join(' ');
  return { all: ` ${phrase(parsed.text)} `, head: ` ${phrase(`${parsed.metadata?.title ?? ''} ${headings} ${parsed.text.slice(0, 400)}`)} ` };
}

/** 1 when a label of two or more words is printed, 0.6 for a one-word label, 0 when none is; tables by their columns. */
function presence(f: FieldDefinition, words: string): number {
  if (f.type === 'array' && f.items?.type === 'object') {
    const props = Object.entries(f.items.properties ?? {}).map(([k, d]) => ({ ...d, name: d.name ?? k }));
    const found = props.filter((p) => presence(p, words) > 0).length;
    return props.length && found >= Math.min(2, props.length) ? found / props.length : 0;
  }
  let best = 0;
  for (const l of labelsOf(f)) if (words.includes(` ${l} `)) best = Math.max(best, l.includes(' ') ? 1 : 0.6);
  return best;
}

/**
 * How well a schema fits a document: 0.75 × the share of its fields whose labels the document prints
 * (required fields count twice) + 0.25 when the document names the schema in its title or opening
 * ("Invoice", "Bank statement", "Curriculum vitae" for "Resume / CV").
 */
export function scoreSchema(s: { id?: string; name: string; fields: FieldDefinition[] }, doc: { all: string; head: string }): { score: number; matched: string[] } {
  if (!s.fields.length) return { score: 0, matched: [] };
  let got = 0;
  let weight = 0;
  const matched: string[] = [];
  for (const f of s.fields) {
    const w = f.required ? 2 : 1;
    const p = presence(f, doc.all);
    weight += w;
    got += w * p;
    if (p > 0) matched.push(f.name);
  }
  const names = [...s.name.replace(/\(.*?\)/g, '').split('/'), ...(TITLES[s.id ?? ''] ?? [])].map(phrase).filter((n) => n.length >= 2);
  const titled = names.some((n) => doc.head.includes(` ${n} `)) ? 1 : 0;
  return { score: Math.round((0.75 * (got / weight) + 0.25 * titled) * 1000) / 1000, matched };
}

/** The prebuilt or saved schema that fits the document best, when it clears the thresholds; null otherwise. */
export async function suggestSchema(rt: Engine, auth: AuthInfo, parsed: ParsedDocument): Promise<SchemaMatch | null> {
  const doc = documentWords(parsed);
  const candidates: { id: string; name: string; formType: string; category: string; fields: FieldDefinition[] }[] = [
    ...PREBUILT_SCHEMAS.map((p) => ({ id: p.id, name: p.name, formType: p.id, category: p.category, fields: p.fields })),
    ...(await readableSchemas(rt, auth)).map((s: SchemaRecord) => ({ id: s.id, name: s.name, formType: String(s.settings?.formType ?? 'custom'), category: String(s.settings?.category ?? 'custom'), fields: s.fields as FieldDefinition[] })),
  ];
  let best: SchemaMatch | null = null;
  for (const c of candidates) {
    const { score, matched } = scoreSchema(c, doc);
    if (matched.length < SUGGEST_MIN_MATCHED || score < SUGGEST_MIN_SCORE) continue;
    if (!best || score > best.score || (score === best.score && matched.length > best.matchedFields.length)) {
      best = { id: c.id, name: c.name, formType: c.formType, category: c.category, fieldCount: c.fields.length, score, matchedFields: matched };
    }
  }
  return best;
}
