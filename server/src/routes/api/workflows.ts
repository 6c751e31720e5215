import Router from '@koa/router';
import { z } from 'zod';
import { errors } from '@quire/core';
import type { WorkflowRecord, WorkflowTriggerRecord } from '@quire/core';
import { requireAuth } from '../../http/context.js';
import type { AppContext } from '../../http/context.js';
import { route } from '../../http/route.js';
import {
  IntegrationBody,
  IntegrationPatch,
  AUTO_TRIGGER_TYPES,
  ScheduleInput,
  TRIGGER_TYPES,
  TriggerConfig,
  WORKFLOW_TEMPLATES,
  WorkflowBody,
  WorkflowPatch,
  apiExecution,
  apiIntegration,
  apiWorkflow,
  canWrite,
  checkCron,
  checkReferences,
  checkWebhookToken,
  checkPluginSteps,
  checkTriggers,
  checkWorkflow,
  createIntegration,
  createWorkflow,
  definitionReferences,
  deleteIntegration,
  deleteWorkflow,
  listOwned,
  listWorkflows,
  loadOwned,
  namedIn,
  newOwned,
  rotateTriggerSecret,
  saveWorkflow,
  scheduleWorkflow,
  scopeOf,
  startExecution,
  templateDefinition,
  triggerReferences,
  triggersOf,
  withTrigger,
  workflowTriggers,
  unscheduleWorkflow,
  updateIntegration,
  workflowById,
  workflowExecutions,
} from '@quire/engine';
import type { AuthInfo, Scope, Trigger, WorkflowDefinition } from '@quire/engine';

const TAG = 'Workflows';
const uuid = z.string().uuid();

/**
 * The documents, schemas, integrations and knowledge bases a definition and its trigger filters name are of
 * the workflow's scope and readable by the caller (else 400 naming the field).
 */
const checkDefinition = async (ctx: AppContext, auth: AuthInfo, scope: Scope, def: WorkflowDefinition, trigger: TriggerConfig, triggers: Trigger[] = []) => {
  await checkReferences(ctx.quire.store, scope, auth, [...definitionReferences(def, trigger), ...triggers.flatMap((t, i) => triggerReferences(t.config, `triggers.${i}.config`))]);
  await checkPluginSteps(ctx.quire, scope, def);
};

/** Trigger data names resources of the workflow's scope only (with `auth`: that the caller may read). */
const checkTriggerData = (ctx: AppContext, auth: AuthInfo | null, w: WorkflowRecord, data: Record<string, unknown>) => checkReferences(ctx.quire.store, scopeOf(w), auth, namedIn(data, 'trigger_data'));

const loadWorkflow = (ctx: AppContext, auth: AuthInfo, id: string, mode: 'read' | 'write') => loadOwned(ctx.quire.store, 'workflows', id, auth, mode, 'workflow');
/** Workflows with their triggers; the inbound URL of a webhook trigger is shown only to callers who may edit the workflow. */
const shown = async (ctx: AppContext, auth: AuthInfo, ws: WorkflowRecord[]) => {
  const sets = await workflowTriggers(ctx.quire, ws.map((w) => w.id));
  return ws.map((w) => apiWorkflow(ctx.quire, w, canWrite(auth, w), sets.get(w.id) ?? []));
};
const one = async (ctx: AppContext, auth: AuthInfo, w: WorkflowRecord, triggers?: WorkflowTriggerRecord[]) => ({
  workflow: triggers ? apiWorkflow(ctx.quire, w, canWrite(auth, w), triggers) : (await shown(ctx, auth, [w]))[0]!,
});
const isAuto = (t: string): t is Trigger['type'] => (AUTO_TRIGGER_TYPES as readonly string[]).includes(t);
/** The schedule among a workflow's triggers (404 when it has none). */
const scheduleOf = async (ctx: AppContext, w: WorkflowRecord) => {
  const s = (await triggersOf(ctx.quire, w)).find((t) => t.type === 'scheduled');
  if (!s) throw errors.notFound('schedule of workflow', w.id);
  const t = s.config as { cron_expression?: string; timezone?: string; input?: ScheduleInput };
  return { workflow_id: w.id, cron_expression: t.cron_expression ?? null, timezone: t.timezone ?? 'UTC', input: t.input ?? null, enabled: w.enabled };
};

const ExecutionStarted = (x: { id: string; status: string; started_at: Date }) => ({ execution_id: x.id, status: x.status, started_at: x.started_at.toISOString() });

/**
 * Workflows (spec §4.9): CRUD, execute, executions with the step log, schedule, the inbound webhook of a
 * webhook trigger, integrations (/api/workflows/integrations) and templates. Fixed paths come before /:id.
 */
export function workflowRoutes(router: Router<any, any>): void {
  // ---- integrations
  route(router, { method: 'get', path: '/api/workflows/integrations', summary: 'List integrations ({integrations: [...]}; secrets masked), optionally of one workflow', tag: TAG, query: z.object({ workflow_id: uuid.optional(), limit: z.coerce.number().int().min(1).max(100).default(100), offset: z.coerce.number().int().min(0).default(0) }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    if (query.workflow_id) await loadWorkflow(ctx, auth, query.workflow_id, 'read');
    const { rows, total } = await listOwned(ctx.quire.store, 'integrations', auth, query.workflow_id ? { workflow_id: query.workflow_id } : {}, { limit: query.limit, offset: query.offset, orderBy: 'created_at' });
    return { integrations: rows.map((r) => apiIntegration(ctx.quire, r)), total };
  });

  route(
    router,
    {
      method: 'post',
      path: '/api/workflows/integrations',
      summary: 'Create an integration ({integration}). config by integration_type: messaging {webhook_url, channel}; email {to, subject, template}; webhook {url, method, headers}. URLs and headers are stored encrypted and shown masked.',
      tag: TAG,
      body: IntegrationBody,
      status: 201,
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const row = await createIntegration(ctx.quire, auth, body);
      ctx.status = 201;
      return { integration: apiIntegration(ctx.quire, row) };
    },
  );

  route(router, { method: 'put', path: '/api/workflows/integrations', summary: 'Update an integration (query id); a config given is merged over the stored one', tag: TAG, query: z.object({ id: uuid }), body: IntegrationPatch }, async (ctx, { query, body }) => {
    const auth = requireAuth(ctx);
    return { integration: apiIntegration(ctx.quire, await updateIntegration(ctx.quire, auth, query.id, body)) };
  });

  route(router, { method: 'delete', path: '/api/workflows/integrations', summary: 'Delete an integration (query id)', tag: TAG, query: z.object({ id: uuid }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const row = await loadOwned(ctx.quire.store, 'integrations', query.id, auth, 'write', 'integration');
    await deleteIntegration(ctx.quire, row);
    return { success: true, id: row.id };
  });

  // ---- templates
  route(router, { method: 'get', path: '/api/workflows/templates', summary: 'Workflow templates ({templates: [...]}), by category', tag: TAG, query: z.object({ category: z.enum(['invoice', 'contract', 'resume', 'general']).optional() }) }, (ctx, { query }) => {
    requireAuth(ctx);
    return { templates: WORKFLOW_TEMPLATES.filter((t) => !query.category || t.category === query.category) };
  });

  route(
    router,
    {
      method: 'post',
      path: '/api/workflows/templates',
      summary: 'Create a workflow from a template ({workflow}, disabled unless enabled: true is sent, then with a message saying so); with integration_id, a last step posts the summary to that integration',
      tag: TAG,
      status: 201,
      body: z.object({ template_id: z.string().min(1).max(64), name: z.string().trim().min(1).max(255).optional(), description: z.string().max(5000).nullable().optional(), integration_id: uuid.optional(), enabled: z.boolean().optional(), organization_id: uuid.nullable().optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const t = WORKFLOW_TEMPLATES.find((x) => x.id === body.template_id);
      if (!t) throw errors.notFound('template', body.template_id);
      const definition = templateDefinition(t, body.integration_id);
      const owner = newOwned(auth, body.organization_id ?? null);
      await checkDefinition(ctx, auth, owner, definition, t.trigger_config as TriggerConfig);
      const { workflow: row, triggers } = await createWorkflow(ctx.quire, owner, {
        name: body.name ?? t.name,
        description: body.description ?? t.description,
        definition,
        trigger_type: t.trigger_type,
        trigger_config: { ...t.trigger_config },
        // a template's trigger (every PDF upload, say) spends credits on work the user may not expect: the
        // workflow starts disabled unless they ask otherwise, and the answer says so
        enabled: body.enabled ?? false,
        schedule_from: null,
      });
      ctx.status = 201;
      return { ...(await one(ctx, auth, row, triggers)), ...(row.enabled ? {} : { message: `Created disabled: its ${row.trigger_type} trigger runs nothing until it is enabled (PATCH /api/workflows/${row.id} with {"enabled": true}, or send "enabled": true when creating it).` }) };
    },
  );

  // ---- workflows
  route(router, { method: 'get', path: '/api/workflows', summary: 'List workflows ({workflows: [...]}); trigger_type keeps those having a trigger of that type among their triggers (manual: those with none)', tag: TAG, query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(100), offset: z.coerce.number().int().min(0).default(0), trigger_type: z.enum(TRIGGER_TYPES).optional() }) }, async (ctx, { query }) => {
    const auth = requireAuth(ctx);
    const { rows, total } = await listWorkflows(ctx.quire, auth, { triggerType: query.trigger_type, limit: query.limit, offset: query.offset });
    return { workflows: await shown(ctx, auth, rows), total, has_more: query.offset + rows.length < total };
  });

  route(router, { method: 'post', path: '/api/workflows', summary: 'Create a workflow ({workflow}, with `triggers`: every automatic trigger it has, trigger_type/trigger_config being the primary one; a body `triggers` gives the whole set, one of each type); a webhook trigger gets its secret inbound URL in trigger_config.webhook_url (shown to those who may edit the workflow). Documents, schemas, integrations and knowledge bases it names must be of its organization (or, for a personal workflow, personal ones of the caller)', tag: TAG, body: WorkflowBody, status: 201 }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    checkWorkflow(body.definition, body.trigger_type, body.trigger_config, ctx.quire.config.workflows);
    checkTriggers(body.triggers ?? [], ctx.quire.config.workflows);
    // the set: `triggers`, with trigger_type's trigger in it (in place of the one of its type)
    const set = isAuto(body.trigger_type) ? withTrigger(body.triggers ?? [], { type: body.trigger_type, config: body.trigger_config }) : (body.triggers ?? []);
    const owner = newOwned(auth, body.organization_id ?? null);
    await checkDefinition(ctx, auth, owner, body.definition, body.trigger_config, body.triggers);
    const { workflow: row, triggers } = await createWorkflow(ctx.quire, owner, {
      name: body.name,
      description: body.description ?? null,
      definition: body.definition,
      trigger_type: body.trigger_type,
      trigger_config: body.trigger_config,
      enabled: body.enabled,
      schedule_from: null,
    }, set);
    ctx.status = 201;
    return one(ctx, auth, row, triggers);
  });

  route(router, { method: 'get', path: '/api/workflows/:id', summary: 'Get a workflow ({workflow})', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    return one(ctx, auth, await loadWorkflow(ctx, auth, ctx.params.id, 'read'));
  });

  route(router, { method: 'put', path: '/api/workflows/:id', summary: 'Update a workflow ({workflow}); fields left out keep their values. `triggers` replaces the set of triggers; trigger_type/trigger_config replace the trigger of that type and keep the others (trigger_type manual alone removes them all). Every resource it names is checked again with the editor\'s rights, within the workflow\'s scope', tag: TAG, body: WorkflowPatch }, async (ctx, { body }) => {
    const auth = requireAuth(ctx);
    const w = await loadWorkflow(ctx, auth, ctx.params.id, 'write');
    const { triggers: givenSet, ...fields } = body;
    const next = { ...w, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)), updated_at: new Date() } as WorkflowRecord;
    if (body.trigger_type && body.trigger_type !== w.trigger_type && body.trigger_config === undefined) next.trigger_config = {};
    checkWorkflow(next.definition as WorkflowDefinition, next.trigger_type, next.trigger_config as TriggerConfig, ctx.quire.config.workflows);
    checkTriggers(givenSet ?? [], ctx.quire.config.workflows);
    await checkDefinition(ctx, auth, scopeOf(w), next.definition as WorkflowDefinition, next.trigger_config as TriggerConfig, givenSet);
    // the set: `triggers` when given, else the current one; trigger_type and trigger_config put the primary
    // trigger in it (in place of the one of its type, the others stay); trigger_type manual alone removes all
    let set: Trigger[] | undefined;
    const restartSchedule = !!(body.enabled && !w.enabled);
    if (givenSet || body.trigger_type || body.trigger_config || restartSchedule) {
      set = givenSet ?? (await triggersOf(ctx.quire, w)).filter((t) => isAuto(t.type)).map((t) => ({ type: t.type as Trigger['type'], config: t.config }));
      if (isAuto(next.trigger_type) && (body.trigger_type || body.trigger_config)) set = withTrigger(set, { type: next.trigger_type, config: next.trigger_config });
      else if (next.trigger_type === 'manual' && body.trigger_type && !givenSet) set = [];
    }
    const saved = await saveWorkflow(ctx.quire, next, set ? { set, primary: body.trigger_type ?? w.trigger_type, restartSchedule } : undefined);
    return one(ctx, auth, saved.workflow, saved.triggers);
  });

  route(router, { method: 'delete', path: '/api/workflows/:id', summary: 'Delete a workflow with its executions and schedule (its integrations are kept, unlinked)', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const w = await loadWorkflow(ctx, auth, ctx.params.id, 'write');
    await deleteWorkflow(ctx.quire, w);
    return { success: true, id: w.id };
  });

  route(
    router,
    { method: 'post', path: '/api/workflows/:id/execute', summary: 'Run a workflow now with trigger_data (ids in it must be of the workflow\'s scope); answers {execution_id, status, started_at} (status running) while it runs in the background; 429 WORKFLOW_LIMIT when too many executions of the owner are running', tag: TAG, status: 202, body: z.object({ trigger_data: z.record(z.string(), z.unknown()).default({}) }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const w = await loadWorkflow(ctx, auth, ctx.params.id, 'write');
      await checkTriggerData(ctx, auth, w, body.trigger_data);
      const x = await startExecution(ctx.quire, w, 'manual', body.trigger_data);
      ctx.status = 202;
      return ExecutionStarted(x!);
    },
  );

  route(
    router,
    { method: 'get', path: '/api/workflows/:id/executions', summary: 'Executions of a workflow, newest first ({executions: [...]}), each with its step log (input, output, duration, error); execution_id picks one', tag: TAG, query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), execution_id: uuid.optional() }) },
    async (ctx, { query }) => {
      const auth = requireAuth(ctx);
      const w = await loadWorkflow(ctx, auth, ctx.params.id, 'read');
      return { executions: (await workflowExecutions(ctx.quire, w, { executionId: query.execution_id, limit: query.limit })).map(apiExecution) };
    },
  );

  // ---- schedule (the trigger of a scheduled workflow)
  route(router, { method: 'get', path: '/api/workflows/:id/schedule', summary: 'The schedule of a workflow ({schedule}: cron_expression, timezone, enabled, next_run); 404 when it has none', tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const w = await loadWorkflow(ctx, auth, ctx.params.id, 'read');
    const s = await scheduleOf(ctx, w);
    const next = w.enabled && s.cron_expression ? checkCron(s.cron_expression, s.timezone, ctx.quire.config.workflows.cronSeconds).nextRun() : null;
    return { schedule: { ...s, next_run: next ? next.toISOString() : null } };
  });

  const setSchedule = async (ctx: AppContext, auth: AuthInfo, w: WorkflowRecord, cron: string, timezone: string, enabled: boolean, input: ScheduleInput | null | undefined) => {
    checkCron(cron, timezone, ctx.quire.config.workflows.cronSeconds, 'body');
    if (input && !input.collection_id === !input.knowledge_base_id) throw errors.validation('input: give collection_id or knowledge_base_id (one of them)', [{ field: 'input', message: 'give collection_id or knowledge_base_id' }]);
    // the workflow's scope, and the caller's rights, reach the collection it reads
    if (input) await checkReferences(ctx.quire.store, scopeOf(w), auth, triggerReferences({ input }, 'body'));
    const { workflow: next } = await scheduleWorkflow(ctx.quire, w, cron, timezone, enabled, input);
    return { schedule: { ...(await scheduleOf(ctx, next)), next_run: enabled ? (checkCron(cron, timezone, ctx.quire.config.workflows.cronSeconds).nextRun()?.toISOString() ?? null) : null } };
  };

  route(
    router,
    {
      method: 'post',
      path: '/api/workflows/:id/schedule',
      summary:
        "Schedule a workflow: five-field cron_expression in an IANA timezone (default UTC). The schedule is added beside the workflow's other triggers (an event or webhook trigger keeps working). input {collection_id | knowledge_base_id, since: last_success (default) | all}: each tick runs the workflow once per completed document of that collection — with last_success those it has not yet run successfully, with all every one — with trigger_data.document_id; a tick with no such document starts nothing",
      tag: TAG,
      status: 201,
      body: z.object({ cron_expression: z.string().min(1).max(200), timezone: z.string().min(1).max(64).default('UTC'), enabled: z.boolean().default(true), input: ScheduleInput.nullable().optional() }).strict(),
    },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const w = await loadWorkflow(ctx, auth, ctx.params.id, 'write');
      ctx.status = 201;
      return setSchedule(ctx, auth, w, body.cron_expression, body.timezone, body.enabled, body.input);
    },
  );

  route(
    router,
    { method: 'put', path: '/api/workflows/:id/schedule', summary: 'Change a schedule: cron_expression, timezone, enabled, input (null removes it)', tag: TAG, body: z.object({ cron_expression: z.string().min(1).max(200).optional(), timezone: z.string().min(1).max(64).optional(), enabled: z.boolean().optional(), input: ScheduleInput.nullable().optional() }).strict() },
    async (ctx, { body }) => {
      const auth = requireAuth(ctx);
      const w = await loadWorkflow(ctx, auth, ctx.params.id, 'write');
      const s = await scheduleOf(ctx, w);
      return setSchedule(ctx, auth, w, body.cron_expression ?? s.cron_expression ?? '', body.timezone ?? s.timezone, body.enabled ?? w.enabled, body.input);
    },
  );

  route(router, { method: 'delete', path: '/api/workflows/:id/schedule', summary: "Remove the schedule; the workflow's other triggers stay (with none left it is manual)", tag: TAG }, async (ctx) => {
    const auth = requireAuth(ctx);
    const w = await loadWorkflow(ctx, auth, ctx.params.id, 'write');
    await scheduleOf(ctx, w);
    await unscheduleWorkflow(ctx.quire, w);
    return { success: true, id: w.id };
  });

  // ---- the inbound URL of a webhook trigger (no API key: the URL's random secret is the credential)
  route(
    router,
    { method: 'post', path: '/api/workflows/:id/trigger/rotate', summary: 'Give the workflow a new trigger secret ({workflow} with the new trigger_config.webhook_url); the old inbound URL stops working at once. Owners, admins and the creator (those who may edit it)', tag: TAG },
    async (ctx) => {
      const auth = requireAuth(ctx);
      const w = await loadWorkflow(ctx, auth, ctx.params.id, 'write');
      return one(ctx, auth, await rotateTriggerSecret(ctx.quire, w));
    },
  );

  route(
    router,
    { method: 'post', path: '/api/workflows/:id/webhook/:token', summary: 'Start a webhook-triggered workflow: the JSON body is its trigger_data (ids in it must be of the workflow\'s scope, else 400). The URL (trigger_config.webhook_url) holds the workflow\'s secret; a wrong or rotated token, a disabled workflow or another trigger type answer 404', tag: TAG, auth: 'none', status: 202 },
    async (ctx) => {
      const raw = (ctx.request as any).body;
      const data = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : { body: raw ?? null };
      const w = await workflowById(ctx.quire, ctx.params.id);
      if (!w || !checkWebhookToken(ctx.quire, w, ctx.params.token) || !w.enabled || !(await triggersOf(ctx.quire, w)).some((t) => t.type === 'webhook')) throw errors.notFound('workflow webhook');
      await checkTriggerData(ctx, null, w, data);
      const x = await startExecution(ctx.quire, w, 'webhook', data);
      ctx.status = 202;
      return ExecutionStarted(x!);
    },
  );
}
