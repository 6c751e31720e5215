import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExtractionEvent, FieldDefinition, LlmPlugin } from '@quire/core';
import { createExtractor, locateQuote } from '@quire/plugin-extractor-layout';
import { invoiceDoc, textDoc } from './docs.js';

type Answer = Record<string, { value: unknown; quote: string | null }>;

/** An LLM plugin that answers from a script and records what it was asked. */
function fakeLlm(answer: (user: string, call: number) => Answer) {
  const calls: Parameters<LlmPlugin['complete']>[0][] = [];
  const llm: LlmPlugin = {
    model: 'fake-1',
    async complete(req) {
      calls.push(req);
      return { content: JSON.stringify(answer(req.messages.at(-1)!.content, calls.length)), usage: { prompt_tokens: 1, completion_tokens: 1 } };
    },
  };
  return { llm, calls };
}
const withLlm = (llm: LlmPlugin) => createExtractor({ use: ((kind: string) => (kind === 'llm' ? llm : undefined)) as any });

const FIELDS: FieldDefinition[] = [
  { name: 'invoice_number', type: 'string' },
  { name: 'total', type: 'number' },
  { name: 'due_date', type: 'date' },
  { name: 'vendor', type: 'string' },
];

test('llm: schema from the fields, quotes located in the text give evidence at the value', async () => {
  const { llm, calls } = fakeLlm(() => ({
    invoice_number: { value: 'INV-2024-0042', quote: 'Invoice No: INV-2024-0042' },
    total: { value: 1542.6, quote: 'Total amount due: € 1.542,60' },
    due_date: { value: '2024-04-11', quote: 'Due Date: 11/04/2024' },
    vendor: { value: 'ACME Trading Ltd.', quote: 'ACME Trading Ltd.' },
  }));
  const doc = invoiceDoc();
  const r = await withLlm(llm).extract({ doc, chunks: [], fields: FIELDS, instructions: 'Amounts in euros.' });
  assert.equal(calls.length, 1);
  const req = calls[0]!;
  assert.equal(req.jsonSchema!.name, 'extraction');
  const schema = req.jsonSchema!.schema as any;
  assert.deepEqual(schema.required, FIELDS.map((f) => f.name));
  assert.deepEqual(schema.properties.total.properties.value.type, ['number', 'null']);
  assert.deepEqual(schema.properties.total.required, ['value', 'quote']);
  assert.equal(schema.additionalProperties, false);
  assert.match(req.messages.at(-1)!.content, /Invoice No: INV-2024-0042/);
  assert.match(req.messages.at(-1)!.content, /Amounts in euros\./);
  assert.deepEqual(r.data, { invoice_number: 'INV-2024-0042', total: 1542.6, due_date: '2024-04-11', vendor: 'ACME Trading Ltd.' });
  for (const fr of r.fieldResults) {
    const ev = fr.evidence!;
    assert.equal(doc.text.slice(ev.span!.start, ev.span!.end), ev.text);
    assert.ok(fr.confidence >= 0.85, `${fr.field} ${fr.confidence}`);
  }
  // the span is the value inside the quote, not the whole quote
  const total = r.fieldResults.find((x) => x.field === 'total')!;
  assert.equal(total.evidence!.text, '€ 1.542,60');
  assert.equal(r.fieldResults.find((x) => x.field === 'due_date')!.evidence!.text, '11/04/2024');
});

test('llm: a value not borne out by the document is never kept: the layout reading stands in, else null', async () => {
  const { llm } = fakeLlm(() => ({
    invoice_number: { value: 'INV-9999', quote: 'Invoice No: INV-9999' }, // invented
    total: { value: 1542.6, quote: 'Grand total 1542.60 EUR' }, // quote paraphrased
    due_date: { value: null, quote: null },
    vendor: { value: 'ACME Trading Ltd.', quote: 'ACME Trading Ltd.' },
    tracking_number: { value: 'TRK-55102', quote: 'Tracking: TRK-55102' }, // invented, and the layout has nothing
  }));
  const doc = invoiceDoc();
  const r = await withLlm(llm).extract({ doc, chunks: [], fields: [...FIELDS, { name: 'tracking_number', type: 'string', description: 'parcel tracking number' }] });
  const by = Object.fromEntries(r.fieldResults.map((x) => [x.field, x]));
  assert.equal(by.invoice_number!.value, 'INV-2024-0042', 'the layout reading, not the invented value');
  assert.deepEqual([by.invoice_number!.answered_by, by.invoice_number!.fallback_reason], ['offline', 'ungrounded']);
  assert.equal(by.total!.value, 1542.6);
  assert.equal(by.total!.evidence!.text, '€ 1.542,60');
  assert.equal(by.total!.answered_by, 'offline');
  assert.deepEqual([by.due_date!.value, by.due_date!.confidence, by.due_date!.evidence, by.due_date!.answered_by], [null, 0, null, 'llm']);
  assert.ok(by.vendor!.confidence >= 0.85);
  assert.deepEqual([by.vendor!.answered_by, by.vendor!.fallback_reason], ['llm', null]);
  assert.deepEqual([by.tracking_number!.value, by.tracking_number!.confidence, by.tracking_number!.evidence, by.tracking_number!.fallback_reason], [null, 0, null, 'ungrounded']);
});

test('llm: a string whose number is not in its quote is dropped', async () => {
  const { llm } = fakeLlm(() => ({ invoice_number: { value: 'INV-2024-0043', quote: 'Invoice No: INV-2024-0042' } }));
  const r = await withLlm(llm).extract({ doc: invoiceDoc(), chunks: [], fields: [{ name: 'invoice_number', type: 'string' }] });
  assert.equal(r.data.invoice_number, 'INV-2024-0042');
  assert.equal(r.fieldResults[0]!.fallback_reason, 'ungrounded');
});

test('llm: an LLM that fails gives the offline reading, unless settings.engine is "llm"', async () => {
  const { errors } = await import('@quire/core');
  const llm: LlmPlugin = {
    model: 'down',
    async complete() {
      throw errors.upstream('LLM server answered HTTP 500 after 3 attempts: down');
    },
  };
  const r = await withLlm(llm).extract({ doc: invoiceDoc(), chunks: [], fields: FIELDS });
  assert.equal(r.data.invoice_number, 'INV-2024-0042');
  assert.ok(r.fieldResults.every((x) => x.answered_by === 'offline' && x.fallback_reason === 'llm_unavailable'));
  await assert.rejects(withLlm(llm).extract({ doc: invoiceDoc(), chunks: [], fields: FIELDS, settings: { engine: 'llm' } }), /HTTP 500/);
});

test('llm: long documents go in windows, one chunk_done per window, best answer per field kept', async () => {
  const lines = Array.from({ length: 60 }, (_, i) => `Line ${i}: lorem ipsum dolor sit amet, consectetur adipiscing elit.`);
  lines[5] = 'Invoice No: A-17';
  lines[55] = 'Total: 99.50';
  const doc = textDoc('long', lines);
  const { llm, calls } = fakeLlm((user) => ({
    invoice_number: user.includes('A-17') ? { value: 'A-17', quote: 'Invoice No: A-17' } : { value: null, quote: null },
    total: user.includes('Total: 99.50') ? { value: 99.5, quote: 'Total: 99.50' } : { value: null, quote: null },
    due_date: { value: null, quote: null },
    vendor: { value: null, quote: null },
  }));
  const events: ExtractionEvent[] = [];
  const r = await withLlm(llm).extract({ doc, chunks: [], fields: FIELDS, settings: { maxPromptChars: 1200 }, onEvent: (e) => events.push(e) });
  assert.ok(calls.length >= 3, `${calls.length} windows`);
  assert.equal(events.filter((e) => e.type === 'chunk_done').length, calls.length);
  assert.deepEqual(r.data, { invoice_number: 'A-17', total: 99.5, due_date: null, vendor: null });
  assert.equal(events.filter((e) => e.type === 'field_extracted').length, FIELDS.length);
});

test('llm: settings.engine "offline" never calls the LLM; a wrong value with a real quote is replaced', async () => {
  const { llm, calls } = fakeLlm(() => ({
    subtotal: { value: 1285.5, quote: 'Subtotal: € 1.285,50' },
    tax: { value: 257.1, quote: 'VAT 20%: € 257,10' },
    total: { value: 1600, quote: 'Total amount due: € 1.542,60' }, // wrong value, real quote
  }));
  const fields: FieldDefinition[] = [{ name: 'subtotal', type: 'number' }, { name: 'tax', type: 'number' }, { name: 'total', type: 'number' }];
  const ex = withLlm(llm);
  const off = await ex.extract({ doc: invoiceDoc(), chunks: [], fields, settings: { engine: 'offline' } });
  assert.equal(calls.length, 0);
  assert.equal(off.data.total, 1542.6);
  const plain = await ex.extract({ doc: invoiceDoc(), chunks: [], fields });
  const agentic = await ex.extract({ doc: invoiceDoc(), chunks: [], fields, settings: { agenticExtractionMode: true } });
  const t = (r: typeof plain) => r.fieldResults.find((x) => x.field === 'total')!;
  // the value is not in its quote: the layout reading stands in, and the sums then hold
  for (const r of [plain, agentic]) {
    assert.equal(t(r).value, 1542.6);
    assert.equal(t(r).fallback_reason, 'ungrounded');
  }
  assert.equal(agentic.data.subtotal, 1285.5);
});

test('llm: settings.engine "llm" without an LLM is a clear error', async () => {
  const ex = createExtractor({ use: (() => undefined) as any });
  await assert.rejects(ex.extract({ doc: invoiceDoc(), chunks: [], fields: FIELDS, settings: { engine: 'llm' } }), /QUIRE_LLM_BASE_URL/);
});

test('locateQuote: verbatim first, then ignoring case and spacing', () => {
  const text = 'Invoice No:  INV-1\nTotal   Due: $ 5.00';
  assert.deepEqual(locateQuote(text, 'Invoice No:  INV-1'), { span: { start: 0, end: 18 }, exact: true });
  const loose = locateQuote(text, 'total due: $ 5.00')!;
  assert.equal(loose.exact, false);
  assert.equal(text.slice(loose.span.start, loose.span.end), 'Total   Due: $ 5.00');
  assert.equal(locateQuote(text, 'nowhere'), null);
});
