/**
 * The handlebars instance of generation templates (helpers: json, table, default, upper, lower, join, eq;
 * no log) and the rendering of a template, which runs in an isolate (template-worker.ts): a template decides
 * how much work it does ({{#each}} over every document's text, nested loops), so rendering is bounded by a
 * time and a heap limit and never runs on the API's event loop.
 */
import type Handlebars from 'handlebars';
import { GENERATED_LIMITS, errors, lazy } from '@quire/core/isolate';

const handlebars = lazy<typeof Handlebars>(import.meta.url, 'handlebars');
let instance: typeof Handlebars | undefined;

/** The handlebars instance of generation templates, made at its first use. */
export function hb(): typeof Handlebars {
  if (instance) return instance;
  const h = handlebars().create();
  // a template must not write to the service's log
  h.unregisterHelper('log');
  h.registerHelper('json', (v: unknown) => new h.SafeString(JSON.stringify(v === undefined ? null : v)));
  /** {{table rows}}: an array of objects (line items) or a source table as a markdown table */
  h.registerHelper('table', (v: unknown) => new h.SafeString(markdownTable(v)));
  h.registerHelper('default', (v: unknown, fallback: unknown) => (v === null || v === undefined || v === '' ? fallback : v));
  h.registerHelper('upper', (v: unknown) => String(v ?? '').toUpperCase());
  h.registerHelper('lower', (v: unknown) => String(v ?? '').toLowerCase());
  h.registerHelper('join', (v: unknown, sep: unknown) => (Array.isArray(v) ? v.map(valueText).join(typeof sep === 'string' ? sep : ', ') : valueText(v)));
  h.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  return (instance = h);
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function markdownTable(v: unknown): string {
  let header: string[] = [];
  let rows: string[][] = [];
  if (v && typeof v === 'object' && !Array.isArray(v) && Array.isArray((v as { rows?: unknown }).rows)) {
    header = ((v as { header?: unknown[] }).header ?? []).map(valueText);
    rows = ((v as { rows: unknown[][] }).rows ?? []).map((r) => (Array.isArray(r) ? r.map(valueText) : [valueText(r)]));
  } else if (Array.isArray(v)) {
    const objects = v.filter((x) => x && typeof x === 'object' && !Array.isArray(x)) as Record<string, unknown>[];
    if (objects.length) {
      header = [...new Set(objects.flatMap((o) => Object.keys(o)))];
      rows = objects.map((o) => header.map((k) => valueText(o[k])));
    } else rows = v.map((x) => [valueText(x)]);
  } else if (v && typeof v === 'object') {
    header = ['Field', 'Value'];
    rows = Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, valueText(x)]);
  }
  if (!rows.length) return '';
  const cols = Math.max(header.length, ...rows.map((r) => r.length), 1);
  if (!header.length) header = Array.from({ length: cols }, (_, i) => `Column ${i + 1}`);
  const line = (r: string[]) => `| ${Array.from({ length: cols }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`;
  return ['', line(header), `| ${Array.from({ length: cols }, () => '---').join(' | ')} |`, ...rows.map(line), ''].join('\n');
}


/** A value as table text: numbers and strings as they are, lists and objects as compact JSON, null as empty. */
export function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A template rendered with its context as markdown; past GENERATED_LIMITS.textChars it is refused. */
export function renderTemplate(prompt: string, context: Record<string, unknown>): string {
  const fn = hb().compile(prompt, { noEscape: true });
  let markdown: string;
  try {
    markdown = fn(context, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false });
  } catch (e) {
    if (e instanceof RangeError && /string length/i.test(e.message)) throw tooLarge();
    throw errors.validation(`The template could not be rendered: ${(e as Error).message.split('\n')[0]}`);
  }
  if (markdown.length > GENERATED_LIMITS.textChars) throw tooLarge();
  return markdown;
}

const tooLarge = () => errors.unprocessable(`The rendered template is larger than ${GENERATED_LIMITS.textChars} characters`);
