/**
 * Evaluates a workflow step's JSONata expressions or renders its handlebars templates in an isolate of its own
 * (sandbox.ts: a child process with a heap limit, killed when a task runs past its time). One task at a time;
 * each answer is refused past the task's size limit. Regexes run on RE2 (regex.ts).
 */
import jsonata from 'jsonata';
import { errors, isQuireError, isolatePort } from '@quire/core/isolate';
import { Re2RegexEngine } from './regex.js';
import { renderTemplate } from './render.js';
import type { EvalRequest, EvalResponse } from './sandbox.js';

/**
 * Bounds JSONata checks itself between steps of an expression: depth of nested evaluation (runaway
 * recursion) and the length of any sequence it builds; the time limit of the whole task is the isolate's.
 */
const EXPRESSION_LIMITS = { stack: 400, sequence: 100_000 };

async function evaluate(expression: string, context: Record<string, unknown>): Promise<unknown> {
  let expr;
  try {
    // (typed as RegExp's constructor: JSONata calls `new RegexEngine(regexp)`, then lastIndex and exec() alone)
    expr = jsonata(expression, { ...EXPRESSION_LIMITS, RegexEngine: Re2RegexEngine as unknown as RegExpConstructor });
  } catch (e) {
    throw errors.validation(`Invalid JSONata expression: ${(e as Error).message}`);
  }
  try {
    const value = await expr.evaluate(context);
    // a JSONata sequence or function becomes plain JSON (what the step's output is)
    return value === undefined ? undefined : (JSON.parse(JSON.stringify(value) ?? 'null') as unknown);
  } catch (e) {
    if (isQuireError(e)) throw e;
    throw errors.validation(`The expression failed: ${(e as Error).message}`);
  }
}

function render(template: string, context: Record<string, unknown>): string {
  try {
    return renderTemplate(template, context);
  } catch (e) {
    if (e instanceof RangeError && /string length/i.test(e.message)) throw errors.unprocessable('The rendered template is larger than a string can be');
    throw errors.validation(`The template could not be rendered: ${(e as Error).message.split('\n')[0]}`);
  }
}

async function handle(req: EvalRequest): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  let size = 0;
  for (const [key, source] of Object.entries(req.items)) {
    const value = req.kind === 'expressions' ? await evaluate(source, req.context) : render(source, req.context);
    size += typeof value === 'string' ? value.length : (JSON.stringify(value) ?? '').length;
    if (size > req.maxChars) throw errors.unprocessable(`The ${req.kind === 'expressions' ? 'result of the expression' : 'rendered template'} is larger than ${req.maxChars.toLocaleString('en-US')} characters`, { limit_chars: req.maxChars });
    out[key] = value;
  }
  return out;
}

const { port } = isolatePort();
port.on('message', (req: EvalRequest) => {
  void handle(req).then(
    (result): EvalResponse => ({ id: req.id, ok: true, result }),
    (e): EvalResponse => ({ id: req.id, ok: false, error: isQuireError(e) ? { code: e.code, message: e.message, details: e.details } : { code: 'VALIDATION_ERROR', message: (e as Error)?.message ?? String(e) } }),
  ).then((reply) => port.postMessage(reply));
});
port.postMessage({ ready: true });
