/**
 * What a workflow is made of (spec §4.9): steps {id, type, config}, a trigger (manual, scheduled, webhook,
 * event) and integrations (messaging, email, webhook). The zod schemas here validate the API's bodies and
 * make /openapi.json; checkWorkflow adds the rules that span fields (unique step ids, forward-only jumps of
 * conditions, a valid cron expression and time zone, JSONata that compiles with regexes RE2 takes, handlebars
 * that parse).
 */
import { Cron } from 'croner';
import type Handlebars from 'handlebars';
import type jsonataFn from 'jsonata';
import { z } from 'zod';
import { EVENT_TYPES, errors, lazy } from '@quire/core';
import { checkTemplateNesting } from '../validation.js';
import { checkRegexes } from '../infra/regex.js';

// parsed to check a definition; loaded at the first definition that has a template or an expression
const handlebars = lazy<typeof Handlebars>(import.meta.url, 'handlebars');
const jsonata = lazy<typeof jsonataFn>(import.meta.url, 'jsonata');

export const STEP_TYPES = ['parse', 'extract', 'transform', 'condition', 'integration', 'plugin'] as const;
export const TRIGGER_TYPES = ['manual', 'scheduled', 'webhook', 'event'] as const;
export const INTEGRATION_TYPES = ['messaging', 'email', 'webhook'] as const;
/** The integration plugin each integration type sends with (a plugin of the same name loaded later replaces it). */
export const INTEGRATION_PLUGINS: Record<(typeof INTEGRATION_TYPES)[number], string> = { messaging: 'slack', webhook: 'http', email: 'email' };
/** The kinds of plugin a `plugin` step can run. */
export const STEP_PLUGIN_KINDS = ['integration', 'extractor'] as const;
/** Events a workflow can be triggered by: every §6.1 event and the platform events (document.processed). */
export const TRIGGER_EVENTS = EVENT_TYPES;

const StepId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only (1 to 64)');
/** a JSONata expression: evaluated over the execution's context, never as JavaScript */
const Expression = z.string().trim().min(1).max(10_000);
/** where a condition goes: the next step (continue), the end of the workflow (stop), or a later step's id */
const Jump = z.string().min(1).max(64);

const ParseConfig = z.object({ document_id: z.string().max(200).optional().describe('the document to parse; default: trigger_data.document_id (or the triggering event\'s document)') }).strict();
const ExtractConfig = z
  .object({
    schema_id: z.string().trim().min(1, 'schema_id is required').max(64).describe('a saved schema (UUID) or a prebuilt one (invoice, receipt, contract, resume, ...)'),
    document_id: z.string().max(200).optional(),
  })
  .strict();
const TransformConfig = z
  .object({
    expression: Expression.optional().describe('JSONata expression; its value is the step output'),
    mapping: z.record(z.string().min(1).max(128), Expression).optional().describe('output field -> JSONata expression'),
  })
  .strict();
const Operator = z.enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'exists', 'not_exists']);
const ConditionConfig = z
  .object({
    expression: Expression.optional().describe('JSONata expression, true or false'),
    field: z.string().min(1).max(500).optional().describe('a path in the context, e.g. total or steps.extract.data.total'),
    operator: Operator.optional(),
    value: z.unknown().optional(),
    on_true: Jump.optional().describe('continue (default), stop, or the id of a later step'),
    on_false: Jump.optional().describe('stop (default), continue, or the id of a later step'),
  })
  .strict();
const IntegrationStepConfig = z
  .object({
    integration_id: z.string().uuid('integration_id must be a UUID'),
    template: z.string().max(100_000).optional().describe('handlebars template with {{field}} placeholders; default: the integration\'s, else the context as JSON'),
    subject: z.string().max(1000).optional().describe('email: overrides the integration\'s subject (a template too)'),
  })
  .strict();

/**
 * A step that runs a plugin, `kind:name`. For an integration: `config` is the target (where to send, checked by
 * the plugin's schema) or `integration_id` (a saved integration, whose secrets stay encrypted), with the step's
 * `template` and `subject`. For an extractor: `fields`, `instructions`, `document_id` (plugin-steps.ts).
 */
const PluginRef = z.string().regex(new RegExp(`^(${STEP_PLUGIN_KINDS.join('|')}):[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`), `kind:name, where kind is ${STEP_PLUGIN_KINDS.join(' or ')}`);
const PluginStepConfig = z
  .object({
    integration_id: z.string().uuid('integration_id must be a UUID').optional().describe('a saved integration as the target (no other target field then)'),
    template: z.string().max(100_000).optional().describe('handlebars template of the message; default: the target\'s, else the context as JSON'),
    subject: z.string().max(1000).optional().describe('a subject template (email)'),
  })
  .catchall(z.unknown());

export const WorkflowStep = z.discriminatedUnion('type', [
  z.object({ id: StepId, type: z.literal('parse'), config: ParseConfig.default({}) }).strict(),
  z.object({ id: StepId, type: z.literal('extract'), config: ExtractConfig }).strict(),
  z.object({ id: StepId, type: z.literal('transform'), config: TransformConfig }).strict(),
  z.object({ id: StepId, type: z.literal('condition'), config: ConditionConfig }).strict(),
  z.object({ id: StepId, type: z.literal('integration'), config: IntegrationStepConfig }).strict(),
  z.object({ id: StepId, type: z.literal('plugin'), plugin: PluginRef, config: PluginStepConfig.default({}) }).strict(),
]);
export type WorkflowStep = z.infer<typeof WorkflowStep>;

export const WorkflowDefinition = z.object({ steps: z.array(WorkflowStep).min(1, 'a workflow needs at least one step').max(50) }).strict();
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;

/**
 * What a scheduled run works on: the documents of a collection or knowledge base (the same thing), each
 * in its own execution. since last_success (default): documents the workflow has not yet run successfully
 * (new ones, and those whose run failed); all: every document at every tick.
 */
export const ScheduleInput = z
  .object({
    collection_id: z.string().uuid().optional(),
    knowledge_base_id: z.string().uuid().optional(),
    since: z.enum(['last_success', 'all']).default('last_success'),
  })
  .strict();
export type ScheduleInput = z.infer<typeof ScheduleInput>;

const FilterValue = z.union([z.string().max(500), z.number(), z.boolean(), z.array(z.union([z.string().max(500), z.number()])).max(100)]);
export const TriggerConfig = z
  .object({
    event: z.enum(TRIGGER_EVENTS).optional().describe('trigger_type event: the event'),
    filters: z.record(z.string().min(1).max(64), FilterValue).optional().describe('trigger_type event: equal (or one of) these event or document fields, e.g. file_type, knowledge_base_id'),
    cron_expression: z.string().max(200).optional().describe('trigger_type scheduled: five-field cron'),
    timezone: z.string().max(64).optional().describe('trigger_type scheduled: IANA time zone (default UTC)'),
    input: ScheduleInput.optional().describe('trigger_type scheduled: the documents each tick runs on, one execution per document'),
  })
  .strict();
export type TriggerConfig = z.infer<typeof TriggerConfig>;

/** The automatic triggers (manual is always possible: POST /api/workflows/<id>/execute). */
export const AUTO_TRIGGER_TYPES = ['scheduled', 'webhook', 'event'] as const;
export type AutoTriggerType = (typeof AUTO_TRIGGER_TYPES)[number];
/** One trigger of a workflow's set. */
export const Trigger = z.object({ type: z.enum(AUTO_TRIGGER_TYPES), config: TriggerConfig.default({}) }).strict();
export type Trigger = z.infer<typeof Trigger>;
const Triggers = z
  .array(Trigger)
  .max(AUTO_TRIGGER_TYPES.length)
  .describe('every automatic trigger of the workflow, at most one of each type; trigger_type and trigger_config name the primary one');

export const WorkflowBody = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(255),
    description: z.string().max(5000).nullable().optional(),
    definition: WorkflowDefinition,
    trigger_type: z.enum(TRIGGER_TYPES).default('manual'),
    trigger_config: TriggerConfig.default({}),
    triggers: Triggers.optional(),
    enabled: z.boolean().default(true),
    organization_id: z.string().uuid().nullable().optional(),
  })
  .strict();
export const WorkflowPatch = z
  .object({
    name: z.string().trim().min(1).max(255).optional(),
    description: z.string().max(5000).nullable().optional(),
    definition: WorkflowDefinition.optional(),
    trigger_type: z.enum(TRIGGER_TYPES).optional(),
    trigger_config: TriggerConfig.optional(),
    triggers: Triggers.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export const IntegrationBody = z
  .object({
    workflow_id: z.string().uuid().nullable().optional(),
    name: z.string().trim().min(1, 'name is required').max(255),
    integration_type: z.enum(INTEGRATION_TYPES),
    config: z.record(z.string(), z.unknown()),
    organization_id: z.string().uuid().nullable().optional(),
  })
  .strict();
export const IntegrationPatch = z
  .object({ workflow_id: z.string().uuid().nullable().optional(), name: z.string().trim().min(1).max(255).optional(), config: z.record(z.string(), z.unknown()).optional() })
  .strict();

const bad = (field: string, message: string) => errors.validation(`${field}: ${message}`, [{ field, message }]);

/** A cron expression and time zone as the scheduler takes them; five fields (six with QUIRE_CRON_SECONDS). */
export function checkCron(expression: string | undefined, timezone: string | undefined, allowSeconds: boolean, field = 'trigger_config'): Cron {
  if (!expression) throw bad(`${field}.cron_expression`, 'required for a scheduled workflow');
  const parts = expression.trim().split(/\s+/).length;
  if (parts !== 5 && !(allowSeconds && parts === 6)) throw bad(`${field}.cron_expression`, 'must have five fields: minute hour day-of-month month day-of-week');
  if (timezone) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    } catch {
      throw bad(`${field}.timezone`, `unknown IANA time zone "${timezone}"`);
    }
  }
  try {
    return new Cron(expression.trim(), { paused: true, timezone: timezone || 'UTC' });
  } catch (e) {
    throw bad(`${field}.cron_expression`, (e as Error).message.replace(/^CronPattern: /, ''));
  }
}

/** The rules of a whole workflow beyond each field's own. */
export function checkWorkflow(def: WorkflowDefinition, triggerType: string, trigger: TriggerConfig, opts: { cronSeconds: boolean }): void {
  const ids = def.steps.map((s) => s.id);
  def.steps.forEach((s, i) => {
    const at = `definition.steps.${i}`;
    if (ids.indexOf(s.id) !== i) throw bad(`${at}.id`, `duplicate step id "${s.id}"`);
    if (s.type === 'transform') {
      if (!s.config.expression === !s.config.mapping) throw bad(`${at}.config`, 'give expression or mapping (one of them)');
      for (const [k, e] of Object.entries(s.config.mapping ?? { expression: s.config.expression! })) compileExpression(e, `${at}.config.${s.config.mapping ? `mapping.${k}` : 'expression'}`);
    }
    if (s.type === 'condition') {
      if (!s.config.expression === !s.config.field) throw bad(`${at}.config`, 'give expression or field (with operator and value)');
      if (s.config.expression) compileExpression(s.config.expression, `${at}.config.expression`);
      for (const key of ['on_true', 'on_false'] as const) {
        const to = s.config[key];
        if (!to || to === 'continue' || to === 'stop') continue;
        const j = ids.indexOf(to);
        if (j < 0) throw bad(`${at}.config.${key}`, `no step "${to}" (continue, stop or the id of a later step)`);
        if (j <= i) throw bad(`${at}.config.${key}`, `"${to}" is not after this step: a condition jumps forward only`);
      }
    }
    if ((s.type === 'integration' || s.type === 'plugin') && s.config.template !== undefined) {
      checkTemplateNesting(s.config.template, `${at}.config.template`);
      try {
        handlebars().parse(s.config.template);
      } catch (e) {
        throw bad(`${at}.config.template`, `not a valid template: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    if (s.type === 'plugin' && s.config.subject !== undefined) {
      checkTemplateNesting(s.config.subject, `${at}.config.subject`);
      try {
        handlebars().parse(s.config.subject);
      } catch (e) {
        throw bad(`${at}.config.subject`, `not a valid template: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    if (s.type === 'plugin' && s.config.integration_id && Object.keys(s.config).some((k) => !['integration_id', 'template', 'subject'].includes(k))) {
      throw bad(`${at}.config`, 'with integration_id the target is the saved integration: give no other target field');
    }
  });
  checkTrigger(triggerType, trigger, opts);
}

/** The fields of one trigger's config that belong to its type (`field`: where it is in the request). */
export function checkTrigger(triggerType: string, trigger: TriggerConfig, opts: { cronSeconds: boolean }, field = 'trigger_config'): void {
  if (triggerType === 'event' && !trigger.event) throw bad(`${field}.event`, `required for an event trigger: one of ${TRIGGER_EVENTS.join(', ')}`);
  if (triggerType !== 'event' && (trigger.event || trigger.filters)) throw bad(field, 'event and filters belong to an event trigger');
  if (triggerType === 'scheduled') checkCron(trigger.cron_expression, trigger.timezone, opts.cronSeconds, field);
  else if (trigger.cron_expression || trigger.timezone || trigger.input) throw bad(field, 'cron_expression, timezone and input belong to a scheduled trigger');
  if (trigger.input && !trigger.input.collection_id === !trigger.input.knowledge_base_id) throw bad(`${field}.input`, 'give collection_id or knowledge_base_id (one of them)');
}

/** A set of triggers: one of each type, each valid for its type. */
export function checkTriggers(triggers: Trigger[], opts: { cronSeconds: boolean }, field = 'triggers'): void {
  triggers.forEach((t, i) => {
    if (triggers.findIndex((o) => o.type === t.type) !== i) throw bad(`${field}.${i}.type`, `a second ${t.type} trigger: a workflow has at most one of each type`);
    checkTrigger(t.type, t.config, opts, `${field}.${i}.config`);
  });
}

/** A JSONata expression that parses and whose regexes RE2 takes (parsing only: nothing is evaluated here). */
function compileExpression(e: string, field: string) {
  let ast: unknown;
  try {
    ast = jsonata()(e).ast();
  } catch (err) {
    throw bad(field, `not a valid JSONata expression: ${(err as Error).message}`);
  }
  try {
    checkRegexes(ast);
  } catch (err) {
    throw bad(field, (err as Error).message);
  }
}
