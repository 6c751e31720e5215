/**
 * Zero-shot fields from a natural-language description, offline: the listed items become fields, typed
 * by keyword ("the invoice number, the total amount and the due date" → invoice_number: string,
 * total_amount: number, due_date: date; "whether it is signed" → is_signed: boolean).
 */
import type { FieldDefinition } from '@quire/core';
import { snakeCase } from './names.js';
import { conceptOf } from './concepts.js';

const LEAD = /^(?:please\s+)?(?:(?:i|we)(?:'d| would)?\s+(?:need|want|like)\s+(?:to\s+)?(?:have\s+)?)?(?:extract|get|find|pull(?: out)?|capture|identify|return|give me|list|read|collect|grab|fields?)?\b[:\s]*/i;
const DETERMINERS = /^(?:the|a|an|all|any|each|every|its|their|his|her|our|your|this|that|these|those|of)\s+/i;
const TRAILING = /\s+(?:from|in|on|of|for)\s+(?:the|this|that|each|every|a|an)\s+(?:document|invoice|receipt|contract|form|file|pdf|page|statement|resume|cv)\b.*$|\s+(?:if (?:present|any|available|shown|listed)|when (?:present|available))\b.*$|\s*\(.*?\)\s*$/i;

/** Words that name a date themselves ("due date", "date of birth", "deadline"). */
const DATE = /\b(date|dates|dated|deadline|birthday|dob)\b/i;
/** Words that make a date only when nothing names an amount ("due" alone, "expires", "start"; "total amount due" is an amount). */
const DATE_HINT = /\b(due|expir\w*|birth|start(?:s|ing)?|end(?:s|ing)?|valid until|issued|signed on)\b/i;
const NUMBER = /\b(amount|total|subtotal|price|cost|costs|fee|fees|sum|balance|tax|vat|gst|salary|wage|rate|percentage|percent|quantity|qty|count|how many|number of|age|weight|height|score|discount|payment amount|deposit|revenue|income|profit|loss|value)\b/i;
const ID_NUMBER = /\b(invoice|order|account|phone|telephone|fax|reference|customer|policy|tracking|serial|vat|tax id|registration|booking|contract|po|id|iban|routing|social security|passport|license|licence|case|ticket)\s+(number|no|#|id)\b/i;
const BOOLEAN = /^(?:is|are|was|were|has|have|had|does|do|did|can|will|should|whether)\b/i;
const LIST = /\b(line items|items|products|list of|skills|languages|positions|jobs|experience|education|parties|signatories|attendees|participants|entries|transactions|charges|services|references)\b/i;

/**
 * The type the words naming a value give it, or null when they say nothing: a word that names a date
 * ("date", "deadline", "DOB") makes a date; else an identifier ("invoice number", "account no") a string;
 * else an amount word ("amount", "total", "balance", "price") a number, before a word that only hints at a
 * date ("total amount due" is an amount, "due" alone a date).
 */
export function typeByWords(phrase: string): 'date' | 'number' | 'string' | null {
  if (/\b(number of|how many|count of|total number)\b/i.test(phrase)) return 'number';
  if (DATE.test(phrase)) return 'date';
  if (ID_NUMBER.test(phrase)) return 'string';
  if (NUMBER.test(phrase)) return 'number';
  if (DATE_HINT.test(phrase)) return 'date';
  return null;
}

export function fieldsFromDescription(description: string): FieldDefinition[] {
  const text = description.replace(/\s+/g, ' ').trim();
  if (!text) return [];
  // the part after a colon usually lists the fields ("I need these: a, b and c")
  const body = /:\s*(.+)$/.exec(text)?.[1] ?? text;
  const parts = body
    .replace(LEAD, '')
    .split(/\s*(?:[,;\n•]|\band(?: also)?\b|\bas well as\b|\bplus\b|\s-\s)\s*/i)
    .map((p) => p.trim())
    .filter(Boolean);
  const out: FieldDefinition[] = [];
  const seen = new Set<string>();
  for (let raw of parts) {
    raw = raw.replace(LEAD, '').replace(/[.?!]+$/, '').trim();
    let p = raw;
    for (let i = 0; i < 3; i++) p = p.replace(DETERMINERS, '');
    p = p.replace(TRAILING, '').trim();
    if (!p || p.split(' ').length > 8) continue;
    let type: FieldDefinition['type'];
    let name: string;
    if (BOOLEAN.test(p)) {
      type = 'boolean';
      const rest = p.replace(/^whether\s+(?:the\s+|it\s+|this\s+)?/i, '').replace(/^(?:the\s+)?\w+\s+(is|are|was|has|have)\s+/i, '$1 ');
      name = snakeCase(/^(is|are|was|has|have|does|do|did|can|will|should)\b/i.test(rest) ? rest : `is ${rest}`);
    } else {
      name = snakeCase(p);
      if (/\b(number of|how many|count of|total number)\b/i.test(p)) type = 'number';
      else if (LIST.test(p) && !ID_NUMBER.test(p)) type = 'array';
      else type = typeByWords(p) ?? conceptOf({ name, type: 'string' })?.type ?? 'string';
    }
    name = name.replace(/^list_of_/, '');
    if (seen.has(name) || name === 'field') continue;
    seen.add(name);
    const f: FieldDefinition = { name, type, description: raw };
    if (type === 'array') {
      f.items = /line items|items|products|charges|services|transactions/i.test(p)
        ? { name: 'item', type: 'object', properties: { description: { name: 'description', type: 'string' }, quantity: { name: 'quantity', type: 'number' }, unit_price: { name: 'unit_price', type: 'number' }, amount: { name: 'amount', type: 'number' } } }
        : { name: 'item', type: 'string' };
    }
    out.push(f);
  }
  return out;
}
