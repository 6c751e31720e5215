/**
 * The handlebars of workflow steps (integration bodies and subjects, `{{…}}` in a step's config). Rendered
 * only in the sandbox's isolates (eval-worker.ts), never on a service's event loop: a template decides how
 * much work it does.
 */
import Handlebars from 'handlebars';

/** A string of the context, JSON-escaped for a JSON template; the json helper gets the original back. */
class JsonString {
  constructor(readonly raw: string) {}
  toString(): string {
    return JSON.stringify(this.raw).slice(1, -1);
  }
}

function escapeForJson(v: unknown): unknown {
  if (typeof v === 'string') return new JsonString(v);
  if (Array.isArray(v)) return v.map(escapeForJson);
  if (v && typeof v === 'object' && !(v instanceof Date)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, escapeForJson(x)]));
  return v;
}

const hb = Handlebars.create();
// a template must not write to the service's log (the isolate's output is the service's)
hb.unregisterHelper('log');
hb.registerHelper('json', (v: unknown) => new hb.SafeString(JSON.stringify(v === undefined ? null : v, (_k, x) => (x instanceof JsonString ? x.raw : x))));

/**
 * Renders a template with {{field}} placeholders (handlebars, no HTML escaping). A template that looks like
 * JSON (starts with { or [) gets its string values JSON-escaped, so that "{{vendor}}" stays valid JSON
 * whatever the vendor's name holds; {{json value}} writes any value as JSON.
 */
export function renderTemplate(template: string, context: Record<string, unknown>): string {
  const jsonish = /^\s*[[{]/.test(template);
  const fn = hb.compile(template, { noEscape: true });
  return fn(jsonish ? escapeForJson(context) : context, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false });
}
