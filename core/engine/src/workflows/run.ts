/**
 * Runs one execution's steps in order (the `run` stage of the `workflow` pipeline). The context every step
 * sees: `trigger` (the trigger data), `steps.<id>` (each finished step's output), `workflow`, `execution`,
 * and at the top level the trigger data's fields, then every step's fields merged in order (an extract
 * step's `data`, a transform's object, a parse step's document fields), so that a template says {{total}}.
 * After each step its log entry (input, output, duration, error) is written to the execution; a stage run
 * again after a crash skips the steps that completed and goes on from there.
 */
import { NonRetryableError, errors, isQuireError } from '@quire/core';
import type { FieldDefinition, IntegrationPlugin, JobRecord, WorkflowExecutionRecord } from '@quire/core';
import type { AuthInfo } from '../infra/access.js';
import { actingAs, canRead, roleIn } from '../infra/access.js';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf } from '../jobs.js';
import { contentKey, loadChunks, loadParsed } from '../io/steps.js';
import { EXTRACT_PIPELINE, extractJobError, prepareExtraction } from '../extraction/service.js';
import type { ExtractJobResult } from '../extraction/service.js';
import { derivedId, stepChargeId } from './executions.js';
import type { WorkflowJobInput } from './executions.js';
import { checkNoSecrets, checkTargetRecipients, integrationConfig, integrationPlugin, parseTarget, pluginOfType } from './integrations.js';
import { inScope } from './scope.js';
import type { Scope } from './scope.js';
import { holdCredits } from '../infra/credits.js';
import { submitJob } from '../infra/submit.js';
import { extractorPlugin, parseExtractorStep } from './plugin-steps.js';

export interface LogEntry {
  step_id: string;
  type: string;
  status: 'running' | 'completed' | 'failed' | 'skipped';
  started_at: string;
  duration_ms: number;
  input: unknown;
  output: unknown;
  error: string | null;
}

type Ctx = Record<string, unknown> & { steps: Record<string, unknown> };
type StepDef = WorkflowJobInput['definition']['steps'][number];

/** how long a parse or extract step waits for a document still being processed, or for its job */
const WAIT_MS = 30 * 60_000;
/** text of a parsed document kept in a step's output (the log keeps the output) */
const TEXT_CAP = 20_000;

const plainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function baseContext(input: WorkflowJobInput, x: WorkflowExecutionRecord): Ctx {
  return {
    ...x.trigger_data,
    trigger: x.trigger_data,
    workflow: { id: input.workflow_id, name: input.workflow_name },
    execution: { id: x.id, triggered_by: x.triggered_by, started_at: x.started_at.toISOString() },
    steps: {},
  };
}

/** Adds a finished step's output to the context. */
function absorb(ctx: Ctx, step: StepDef, output: unknown): void {
  ctx.steps[step.id] = output;
  if (!plainObject(output)) return;
  if (step.type === 'extract' && plainObject(output.data)) Object.assign(ctx, output.data, { extraction_id: output.extraction_id, document_id: output.document_id });
  else if (step.type === 'plugin' && step.plugin?.startsWith('extractor:') && plainObject(output.data)) Object.assign(ctx, output.data, { document_id: output.document_id });
  else if (step.type === 'parse') Object.assign(ctx, { document_id: output.document_id, document_name: output.name, file_type: output.file_type, pages: output.pages, text: output.text });
  else if (step.type === 'transform') {
    const { steps: _s, trigger: _t, workflow: _w, execution: _e, ...rest } = output;
    Object.assign(ctx, rest);
  }
}

/** A dotted path in the context (steps.extract.data.total, total, line_items.0.amount). */
export function pathValue(ctx: unknown, path: string): unknown {
  let v: unknown = ctx;
  for (const part of path.split('.')) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(v, part)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

function compare(actual: unknown, operator: string, expected: unknown): boolean {
  const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
  const a = num(actual);
  const b = num(expected);
  switch (operator) {
    case 'exists':
      return actual !== undefined && actual !== null && actual !== '';
    case 'not_exists':
      return actual === undefined || actual === null || actual === '';
    case 'contains':
      return Array.isArray(actual) ? actual.some((x) => x === expected || String(x) === String(expected)) : String(actual ?? '').toLowerCase().includes(String(expected ?? '').toLowerCase());
    case 'ne':
      return !compare(actual, 'eq', expected);
    case 'eq':
      return a !== null && b !== null ? a === b : JSON.stringify(actual) === JSON.stringify(expected) || String(actual) === String(expected);
    default: {
      if (a === null || b === null) return false;
      return operator === 'gt' ? a > b : operator === 'gte' ? a >= b : operator === 'lt' ? a < b : a <= b;
    }
  }
}

async function waitFor<T>(what: string, signal: AbortSignal, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let delay = 100;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw errors.conflict(`${what} did not finish within ${WAIT_MS / 60_000} minutes`);
    signal.throwIfAborted();
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(1000, Math.round(delay * 1.5));
  }
}

/** The document a parse or extract step works on: its config's (a template too), else the trigger's, else an earlier parse's. */
async function documentIdOf(rt: Engine, step: StepDef, ctx: Ctx, signal: AbortSignal): Promise<string | null> {
  const given = step.config.document_id;
  if (typeof given === 'string' && given) return given.includes('{{') ? (await rt.workflowSandbox.templates({ document_id: given }, ctx, signal)).document_id! : given;
  const id = ctx.document_id ?? (ctx.trigger as Record<string, unknown>).document_id;
  return typeof id === 'string' && id ? id : null;
}

/** A document of the workflow's scope the acting user may read, else 404 (whoever edited the ids or the trigger data). */
async function scopedDocument(rt: Engine, auth: AuthInfo, scope: Scope, documentId: string) {
  const doc = await rt.store.repo('documents').get(documentId);
  if (!doc || !canRead(auth, doc) || !inScope(scope, doc)) throw errors.notFound('document', documentId);
  return doc;
}

async function parseStep(rt: Engine, auth: AuthInfo, scope: Scope, step: StepDef, ctx: Ctx, signal: AbortSignal) {
  const documentId = await documentIdOf(rt, step, ctx, signal);
  if (!documentId) throw errors.validation('The parse step has no document: give trigger_data.document_id (or config.document_id)');
  await scopedDocument(rt, auth, scope, documentId);
  // a document that was just uploaded is parsed by its ingest job: the step waits for it
  const doc = await waitFor(`Parsing document ${documentId}`, signal, async () => {
    const d = await rt.store.repo('documents').get(documentId);
    if (!d) throw errors.notFound('document', documentId);
    if (d.status === 'failed') throw errors.processing(`Document ${documentId} could not be parsed: ${d.error ?? 'failed'}`);
    return d.status === 'completed' ? d : null;
  });
  const chunks = await loadChunks(rt, doc.id);
  const text = chunks.map((c) => c.content).join('\n\n');
  return {
    input: { document_id: documentId },
    output: { document_id: doc.id, name: doc.name, file_type: doc.file_type, pages: doc.pages, chunks: chunks.length, text: text.slice(0, TEXT_CAP), text_truncated: text.length > TEXT_CAP },
  };
}

async function extractStep(rt: Engine, auth: AuthInfo, scope: Scope, step: StepDef, ctx: Ctx, executionId: string, signal: AbortSignal) {
  const documentId = await documentIdOf(rt, step, ctx, signal);
  if (!documentId) throw errors.validation('The extract step has no document: give trigger_data.document_id, a parse step before it, or config.document_id');
  const schemaId = String(step.config.schema_id);
  // one extraction job per execution and step: a stage run again after a crash waits for the same job
  const jobId = derivedId('workflow-extract', executionId, step.id);
  if (!(await rt.store.repo('jobs').get(jobId))) {
    await scopedDocument(rt, auth, scope, documentId);
    const schema = await rt.store.repo('schemas').get(schemaId);
    if (schema && !inScope(scope, schema)) throw errors.notFound('schema', schemaId);
    // the extraction belongs to the workflow's scope
    const prepared = await prepareExtraction(rt, auth, { documentId, schemaId, waitForDocument: true, jobId, organizationId: scope.organization_id });
    // refused before the job exists when the owner's credits cannot cover it (the step fails, nothing is charged)
    await submitJob(rt, EXTRACT_PIPELINE, ownerOf(prepared), prepared.input ?? {}, { id: jobId, documentId: prepared.document_id, credits: { operation: 'extract', units: 1 }, unique: true });
  }
  const done = await waitFor<JobRecord>('The extraction', signal, async () => {
    const j = await rt.store.repo('jobs').get(jobId);
    return j && (j.status === 'completed' || j.status === 'failed') ? j : null;
  });
  if (done.status === 'failed') throw extractJobError(done);
  const r = done.result as unknown as ExtractJobResult;
  const x = await rt.store.repo('extractions').get(r.extraction_id);
  return {
    input: { document_id: documentId, schema_id: schemaId },
    output: { extraction_id: r.extraction_id, job_id: jobId, document_id: r.document_id, schema_id: r.schema_id, data: x?.data ?? {}, overall_confidence: r.overall_confidence, fields_extracted: r.fields_extracted },
  };
}

/**
 * A step's JSONata expressions over the context, all in one task of the sandbox (an isolate with a time and
 * a size limit; regexes on RE2): name → value.
 */
const evaluate = (rt: Engine, expressions: Record<string, string>, ctx: Ctx, signal: AbortSignal) => rt.workflowSandbox.expressions(expressions, ctx, signal);

async function transformStep(rt: Engine, step: StepDef, ctx: Ctx, signal: AbortSignal) {
  const mapping = step.config.mapping as Record<string, string> | undefined;
  if (mapping) {
    const out = await evaluate(rt, mapping, ctx, signal);
    return { input: { mapping }, output: JSON.parse(JSON.stringify(out)) as unknown };
  }
  const { value } = await evaluate(rt, { value: String(step.config.expression) }, ctx, signal);
  return { input: { expression: step.config.expression }, output: value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown) };
}

async function conditionStep(rt: Engine, step: StepDef, ctx: Ctx, signal: AbortSignal) {
  const c = step.config as { expression?: string; field?: string; operator?: string; value?: unknown; on_true?: string; on_false?: string };
  let result: boolean;
  let input: Record<string, unknown>;
  if (c.expression) {
    result = !!(await evaluate(rt, { result: c.expression }, ctx, signal)).result;
    input = { expression: c.expression };
  } else {
    const actual = pathValue(ctx, c.field!);
    const operator = c.operator ?? (c.value === undefined ? 'exists' : 'eq');
    result = compare(actual, operator, c.value);
    input = { field: c.field, value: actual ?? null, operator, expected: c.value ?? null };
  }
  const next = result ? (c.on_true ?? 'continue') : (c.on_false ?? 'stop');
  return { input, output: { result, next } };
}

/**
 * Sends the step's message with an integration plugin: the body (and, when the step, the target or the plugin
 * gives one, the subject) rendered together in the sandbox (an isolate with a time and a size limit), the
 * target checked by the plugin's schema and its recipients by the owner's rules (again at each send: a member
 * may have left). `base` goes into the log's input and output.
 */
async function sendWith(rt: Engine, scope: Scope, plugin: IntegrationPlugin, target: Record<string, unknown>, stepConfig: Record<string, unknown>, ctx: Ctx, base: Record<string, unknown>, signal: AbortSignal) {
  const template = (stepConfig.template as string | undefined) ?? (target.template as string | undefined);
  const subject = (stepConfig.subject as string | undefined) ?? (target.subject as string | undefined) ?? plugin.subject;
  const { steps, trigger, workflow, execution, text: _text, ...data } = ctx;
  const templates: Record<string, string> = {};
  if (template !== undefined) templates.body = template;
  if (subject !== undefined) templates.subject = subject;
  const out = Object.keys(templates).length ? await rt.workflowSandbox.templates(templates, ctx, signal) : {};
  const body = out.body ?? JSON.stringify({ workflow, execution, trigger, data, steps: Object.keys(steps) });
  const w = workflow as { id: string; name: string };
  const message = { body, ...(out.subject !== undefined ? { subject: out.subject } : {}), workflow: { id: String(w.id), name: String(w.name) }, execution: { id: String((execution as { id: string }).id) } };
  try {
    await checkTargetRecipients(rt.store, scope, plugin, target);
    const r = await plugin.send({ target, message, signal });
    return { input: { ...base, ...r.sent }, output: { ...base, ...r.result } };
  } catch (e) {
    const sent = (e as { sent?: Record<string, unknown> }).sent;
    throw Object.assign(e as object, { stepInput: { ...base, ...(sent ?? {}) } });
  }
}

/** A saved integration of the workflow's scope, its config with secrets decrypted. */
async function savedIntegration(rt: Engine, scope: Scope, id: string) {
  const row = await rt.store.repo('integrations').get(id);
  if (!row || !inScope(scope, row)) throw errors.notFound('integration', id);
  return { row, config: integrationConfig(rt, row) };
}

/** The spec's integration step: the plugin of the integration's type (INTEGRATION_PLUGINS) sends to it. */
async function integrationStep(rt: Engine, scope: Scope, step: StepDef, ctx: Ctx, signal: AbortSignal) {
  const id = String(step.config.integration_id);
  const { row, config } = await savedIntegration(rt, scope, id);
  const plugin = pluginOfType(rt, row.integration_type);
  const target = parseTarget(plugin, config, `integration ${id}`);
  return sendWith(rt, scope, plugin, { ...config, ...target }, step.config, ctx, { integration_id: id, integration_type: row.integration_type, name: row.name }, signal);
}

/**
 * An extractor plugin (any loaded one, not only the selected extractor) on the workflow's document, once it is
 * parsed: its parsed content and chunks, the step's fields. Charged as an extraction (a credit hold settled
 * when it succeeds, released when it fails), under the run's and the step's id (stepChargeId), which the
 * run's discard removes.
 */
async function extractorStep(rt: Engine, auth: AuthInfo, scope: Scope, step: StepDef & { plugin: string }, name: string, ctx: Ctx, executionId: string, signal: AbortSignal) {
  const config = parseExtractorStep(step.config, 'config');
  const documentId = await documentIdOf(rt, { ...step, config }, ctx, signal);
  if (!documentId) throw errors.validation('The extractor step has no document: give trigger_data.document_id, a parse step before it, or config.document_id');
  await scopedDocument(rt, auth, scope, documentId);
  const extractor = await extractorPlugin(rt, name);
  const doc = await waitFor(`Parsing document ${documentId}`, signal, async () => {
    const d = await rt.store.repo('documents').get(documentId);
    if (!d) throw errors.notFound('document', documentId);
    if (d.status === 'failed') throw errors.processing(`Document ${documentId} could not be parsed: ${d.error ?? 'failed'}`);
    return d.status === 'completed' ? d : null;
  });
  const input = { plugin: step.plugin, document_id: doc.id, fields: config.fields.map((f) => f.name) };
  const hold = await holdCredits(rt, scope, 'extract', 1).catch((e) => Promise.reject(Object.assign(e, { stepInput: input })));
  try {
    const parsed = await loadParsed(rt, contentKey(doc.id));
    const chunks = await loadChunks(rt, doc.id);
    const r = await extractor.extract({ doc: parsed, chunks, fields: config.fields as FieldDefinition[], instructions: config.instructions, signal });
    await hold.settle(stepChargeId(executionId, step.id));
    const fields = r.fieldResults.map((f) => ({ field: f.field, confidence: f.confidence, page: f.evidence?.page ?? null }));
    return { input, output: { plugin: step.plugin, document_id: doc.id, data: r.data, fields } };
  } catch (e) {
    await hold.release();
    throw Object.assign(e as object, { stepInput: input });
  }
}

/** A step that runs a plugin by name (`integration:<name>` or `extractor:<name>`), built-in or loaded with QUIRE_PLUGINS. */
async function pluginStep(rt: Engine, auth: AuthInfo, scope: Scope, step: StepDef & { plugin: string }, ctx: Ctx, executionId: string, signal: AbortSignal) {
  const [kind, name] = step.plugin.split(':') as [string, string];
  if (kind === 'extractor') return extractorStep(rt, auth, scope, step, name, ctx, executionId, signal);
  if (kind !== 'integration') throw errors.validation(`plugin: a step cannot run a ${kind} plugin`);
  const plugin = integrationPlugin(rt, name);
  const { integration_id, template: _t, subject: _s, ...given } = step.config as Record<string, unknown>;
  if (typeof integration_id === 'string') {
    const { row, config } = await savedIntegration(rt, scope, integration_id);
    const target = parseTarget(plugin, config, `integration ${integration_id}`);
    return sendWith(rt, scope, plugin, { ...config, ...target }, step.config, ctx, { plugin: step.plugin, integration_id, name: row.name }, signal);
  }
  checkNoSecrets(plugin, given, step.plugin);
  return sendWith(rt, scope, plugin, parseTarget(plugin, given, step.plugin, 'config'), step.config, ctx, { plugin: step.plugin }, signal);
}

async function runStep(rt: Engine, auth: AuthInfo, scope: Scope, step: StepDef, ctx: Ctx, executionId: string, signal: AbortSignal): Promise<{ input: unknown; output: unknown }> {
  switch (step.type) {
    case 'parse':
      return parseStep(rt, auth, scope, step, ctx, signal);
    case 'extract':
      return extractStep(rt, auth, scope, step, ctx, executionId, signal);
    case 'transform':
      return transformStep(rt, step, ctx, signal);
    case 'condition':
      return conditionStep(rt, step, ctx, signal);
    case 'integration':
      return integrationStep(rt, scope, step, ctx, signal);
    case 'plugin':
      return pluginStep(rt, auth, scope, step as StepDef & { plugin: string }, ctx, executionId, signal);
    default:
      throw errors.validation(`Unknown step type ${step.type}`);
  }
}

/** Writes the log (and optionally more) to a running execution; false when it is no longer running (cancelled). */
async function save(rt: Engine, id: string, patch: Partial<WorkflowExecutionRecord>): Promise<boolean> {
  return (await rt.store.repo('workflow_executions').update({ id, status: 'running' }, patch)) > 0;
}

/**
 * Runs the execution of a 'workflow' job. Resolves when it completed (the log says which steps ran and
 * which were skipped); a failing step is logged with its error, fails the execution and throws a
 * NonRetryableError (the job fails with the step's error).
 */
export async function runExecution(rt: Engine, job: JobRecord, signal: AbortSignal): Promise<Record<string, unknown>> {
  const input = job.input as unknown as WorkflowJobInput;
  const x = await rt.store.repo('workflow_executions').get(input.execution_id);
  if (!x) throw new NonRetryableError(`Execution ${input.execution_id} no longer exists`);
  if (x.status !== 'running') return { execution_id: x.id, status: x.status };
  // steps act as the creator, within the workflow's scope; an organization's workflow only while its creator is a member
  const auth = await actingAs(rt.store, x.user_id);
  const owner = ownerOf(x);
  if (owner.organization_id && !roleIn(auth, owner.organization_id)) {
    const reason = "The workflow's creator is no longer a member of its organization";
    await save(rt, x.id, { status: 'failed', error: reason, completed_at: new Date() });
    throw new NonRetryableError(reason);
  }
  const ctx = baseContext(input, x);
  const log = (x.execution_log as LogEntry[]).filter((e) => e.status === 'completed' || e.status === 'skipped');
  const steps = input.definition.steps;
  let i = 0;
  let stopped = false;
  while (i < steps.length) {
    const step = steps[i]!;
    const earlier = log.find((e) => e.step_id === step.id);
    let output: unknown;
    if (earlier?.status === 'skipped') {
      i++;
      continue;
    }
    if (earlier) {
      output = earlier.output;
    } else {
      signal.throwIfAborted();
      const started = new Date();
      const t0 = performance.now();
      const entry: LogEntry = { step_id: step.id, type: step.type, status: 'running', started_at: started.toISOString(), duration_ms: 0, input: null, output: null, error: null };
      if (!(await save(rt, x.id, { execution_log: [...log, entry] }))) return { execution_id: x.id, status: 'cancelled' };
      try {
        const r = await runStep(rt, auth, owner, step, ctx, x.id, signal);
        Object.assign(entry, { status: 'completed', input: r.input, output: r.output, duration_ms: Math.round(performance.now() - t0) });
        output = r.output;
      } catch (e) {
        if (signal.aborted) throw e;
        const message = isQuireError(e) || e instanceof Error ? (e as Error).message : String(e);
        Object.assign(entry, { status: 'failed', error: message, input: (e as { stepInput?: unknown }).stepInput ?? entry.input, duration_ms: Math.round(performance.now() - t0) });
        await save(rt, x.id, { execution_log: [...log, entry], status: 'failed', error: `Step ${step.id} (${step.type}) failed: ${message}`, completed_at: new Date() });
        throw new NonRetryableError(`Step ${step.id} (${step.type}) failed: ${message}`);
      }
      log.push(entry);
      if (!(await save(rt, x.id, { execution_log: log }))) return { execution_id: x.id, status: 'cancelled' };
      await rt.events
        .emit('workflow.step.completed', { workflow_id: input.workflow_id, execution_id: x.id, step_id: step.id, step_type: step.type, status: 'completed', duration_ms: entry.duration_ms, chain_depth: input.chain_depth, origin_id: input.origin_id ?? x.id }, owner)
        .catch((err) => rt.logger.debug({ err: (err as Error).message }, 'workflow.step.completed not published'));
    }
    absorb(ctx, step, output);
    i++;
    if (step.type === 'condition') {
      const next = (output as { next: string }).next;
      const to = next === 'continue' ? i : next === 'stop' ? steps.length : steps.findIndex((s) => s.id === next);
      // the steps passed over are logged as skipped
      for (let k = i; k < Math.max(i, to === -1 ? steps.length : to); k++) {
        if (!log.some((e) => e.step_id === steps[k]!.id)) log.push({ step_id: steps[k]!.id, type: steps[k]!.type, status: 'skipped', started_at: new Date().toISOString(), duration_ms: 0, input: null, output: null, error: null });
      }
      if (next === 'stop') stopped = true;
      if (to !== i) await save(rt, x.id, { execution_log: log });
      i = to === -1 ? steps.length : to;
    }
  }
  await save(rt, x.id, { execution_log: log, status: 'completed', completed_at: new Date() });
  return { execution_id: x.id, status: 'completed', stopped_by_condition: stopped };
}

/** Marks a running execution failed (the job failed: last attempt, cancellation, a stage that could not run). */
export async function failExecution(rt: Engine, id: string, reason: string): Promise<boolean> {
  return (await rt.store.repo('workflow_executions').update({ id, status: 'running' }, { status: 'failed', error: reason, completed_at: new Date() })) > 0;
}

