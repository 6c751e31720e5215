/**
 * Instructions in plain language → values of elements. Offline, the text is cut into statements ("My
 * name is Jane Doe", "born 4 April 1990", "I am a US citizen", "check the box for X", "date of birth
 * 1990-04-01", "City: Oslo") that become (label, value) or (checkbox, state) pairs, matched to the form's
 * labels (match.ts). With an LLM configured, the model maps the instructions to element ids instead, and
 * the offline reading fills what the model left out.
 */
import type { EditElement, LlmPlugin } from '@quire/core';
import { scanDates } from '@quire/fields';
import { bestElement } from './match.js';
import type { Vocabulary } from './match.js';

export interface Derived {
  elementId: string;
  value: string | boolean;
  reasoning: string;
  confidence: number;
}

interface Statement {
  label: string;
  value: string | boolean;
  checkbox: boolean;
  text: string;
}

/** Statements of the instructions, in order. */
export function statements(instructions: string): Statement[] {
  const out: Statement[] = [];
  const clauses = instructions
    .split(/(?<=[.;!?\n])\s+|\n+|,\s+(?=(?:and\s+)?(?:i|my|i'm|born|check|tick|uncheck|please|date|set|fill)\b)|\s+and\s+(?=(?:i|my|i'm|born|check|tick|uncheck)\b)/i)
    .map((c) => c.trim().replace(/[.;!]+$/, '').trim())
    .filter(Boolean);
  for (const c of clauses) {
    let m: RegExpExecArray | null;
    if ((m = /^(?:please\s+)?(check|tick|select|mark|uncheck|untick|clear)\s+(?:the\s+)?(?:box\s+)?(?:for\s+|of\s+|that says\s+)?(.+)$/i.exec(c))) {
      out.push({ label: m[2]!, value: !/^un|clear/i.test(m[1]!), checkbox: true, text: c });
      continue;
    }
    if ((m = /^(?:and\s+)?(?:i\s+was\s+|i'm\s+|i\s+am\s+)?born\s+(?:on\s+|in\s+)?(.+)$/i.exec(c))) {
      out.push({ label: 'date of birth', value: m[1]!, checkbox: false, text: c });
      continue;
    }
    if ((m = /^(?:and\s+)?(?:my|our|the)\s+(.+?)\s+(?:is|are|=|:)\s+(.+)$/i.exec(c)) || (m = /^(?:and\s+)?(?:set\s+|fill\s+)?(.+?)\s*(?::|=|\bto\b|\bis\b)\s+(.+)$/i.exec(c))) {
      if (!/^i\b/i.test(m[1]!)) {
        out.push({ label: m[1]!, value: m[2]!.replace(/^["']|["']$/g, ''), checkbox: false, text: c });
        continue;
      }
    }
    if ((m = /^(?:and\s+)?(?:i\s+am|i'm)\s+(not\s+)?(?:an?\s+)?(.+)$/i.exec(c))) {
      out.push({ label: m[2]!, value: !m[1], checkbox: true, text: c });
      continue;
    }
    // "date of birth 1990-04-01": a label followed by a date
    const d = scanDates(c)[0];
    if (d && d.start > 0) out.push({ label: c.slice(0, d.start).trim(), value: c.slice(d.start, d.end), checkbox: false, text: c });
  }
  return out;
}

/** The elements the statements name, with the value and why. */
export function applyOffline(instructions: string, elements: EditElement[], vocab: Vocabulary, taken = new Set<string>()): Derived[] {
  const out: Derived[] = [];
  for (const s of statements(instructions)) {
    if (s.checkbox) {
      const hit = bestElement(s.label, elements, vocab, { types: ['checkbox'], taken });
      if (hit) {
        taken.add(hit.element.id);
        out.push({ elementId: hit.element.id, value: s.value, reasoning: `"${s.text}" ${s.value ? 'checks' : 'unchecks'} "${hit.element.label}"`, confidence: Math.min(0.95, hit.score) });
      } else {
        // "I am a citizen of X": a radio or dropdown option may say it
        const opt = elements.find((e) => !taken.has(e.id) && e.options?.some((o) => o.toLowerCase() === s.label.toLowerCase()));
        if (opt) {
          taken.add(opt.id);
          out.push({ elementId: opt.id, value: opt.options!.find((o) => o.toLowerCase() === s.label.toLowerCase())!, reasoning: `"${s.text}" chooses an option of "${opt.label}"`, confidence: 0.8 });
        }
      }
      continue;
    }
    const value = String(s.value).trim();
    const types: EditElement['type'][] = ['text_field', 'date_field', 'number_field', 'dropdown', 'radio'];
    const hit = bestElement(s.label, elements, vocab, { types, taken });
    if (hit) {
      taken.add(hit.element.id);
      out.push({ elementId: hit.element.id, value, reasoning: `"${s.text}" gives "${hit.element.label}"`, confidence: Math.min(0.95, hit.score) });
      continue;
    }
    // a full name for a form that asks first and last name apart
    if (/^(full\s+)?name$/i.test(s.label.trim())) {
      const parts = value.split(/\s+/);
      const first = bestElement('first name', elements, vocab, { types, taken, min: 0.8 });
      const last = bestElement('last name', elements, vocab, { types, taken, min: 0.8 });
      if (first && last && parts.length >= 2) {
        taken.add(first.element.id).add(last.element.id);
        out.push({ elementId: first.element.id, value: parts.slice(0, -1).join(' '), reasoning: `"${s.text}": the first name`, confidence: 0.8 });
        out.push({ elementId: last.element.id, value: parts[parts.length - 1]!, reasoning: `"${s.text}": the last name`, confidence: 0.8 });
      }
    }
  }
  return out;
}

/** The model's mapping of instructions to element ids (ids it invents are dropped). */
export async function applyLlm(llm: LlmPlugin, instructions: string, elements: EditElement[], signal?: AbortSignal): Promise<Derived[]> {
  const list = elements.map((e) => ({ id: e.id, type: e.type, label: e.label, ...(e.options ? { options: e.options } : {}), ...(e.format ? { format: e.format } : {}) }));
  const res = await llm.complete({
    messages: [
      { role: 'system', content: 'You fill forms. Given the form elements and the user instructions, answer JSON {"fills":[{"elementId","value","reasoning"}]} with only elements the instructions give a value for. Checkboxes take true or false; radios and dropdowns one of their options. Never invent values.' },
      { role: 'user', content: `Elements:\n${JSON.stringify(list)}\n\nInstructions:\n${instructions}` },
    ],
    jsonSchema: {
      name: 'fills',
      schema: { type: 'object', properties: { fills: { type: 'array', items: { type: 'object', properties: { elementId: { type: 'string' }, value: {}, reasoning: { type: 'string' } }, required: ['elementId', 'value'] } } }, required: ['fills'] },
    },
    temperature: 0,
    signal,
  });
  let parsed: { fills?: { elementId?: unknown; value?: unknown; reasoning?: unknown }[] } = {};
  try {
    parsed = JSON.parse(res.content.replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return [];
  }
  const ids = new Set(elements.map((e) => e.id));
  return (parsed.fills ?? [])
    .filter((f) => typeof f.elementId === 'string' && ids.has(f.elementId) && f.value !== null && f.value !== undefined)
    .map((f) => ({ elementId: f.elementId as string, value: typeof f.value === 'boolean' ? f.value : String(f.value), reasoning: typeof f.reasoning === 'string' ? f.reasoning : 'mapped by the language model', confidence: 0.85 }));
}
