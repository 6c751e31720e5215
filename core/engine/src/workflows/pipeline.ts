/**
 * `workflow`: one job per workflow execution (the job's id is the execution's), one stage `run` that runs
 * the steps in order (workflows/run.ts). A stage taken over after a crash resumes after the last logged
 * step; a failing step fails the job at once. Events: workflow.started, workflow.step.completed (per step),
 * workflow.completed, workflow.failed. API processes also start the event triggers and the scheduler here.
 */
import type { JobRecord } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { ownerOf } from '../jobs.js';
import { WORKFLOW_PIPELINE, derivedId, stepChargeId } from './executions.js';
import type { WorkflowJobInput } from './executions.js';
import { failExecution, runExecution } from './run.js';
import { removeExtractJobs } from '../extraction/remove.js';
import { startTriggers } from './triggers.js';

const inputOf = (job: JobRecord) => job.input as unknown as WorkflowJobInput;

/**
 * What an execution's steps wrote for its owner, removed: the extraction jobs its extract steps started (ids
 * derived from the execution's and the step's), with their extractions, charges and files; the charges of its
 * extractor plugin steps (keyed by the execution and the step, stepChargeId).
 */
async function removeStepWork(rt: Engine, input: WorkflowJobInput): Promise<void> {
  const steps = input.definition.steps;
  await removeExtractJobs(rt, steps.filter((s) => s.type === 'extract').map((s) => derivedId('workflow-extract', input.execution_id, s.id)));
  const charged = steps.filter((s) => s.type === 'plugin' && s.plugin?.startsWith('extractor:')).map((s) => stepChargeId(input.execution_id, s.id));
  if (charged.length) await rt.store.repo('usage').delete({ resource_id: charged, operation: 'extract' });
}

export function defineWorkflowPipeline(rt: Engine): void {
  const emit = (type: string, job: JobRecord, data: Record<string, unknown>) =>
    rt.events.emit(type, { workflow_id: inputOf(job).workflow_id, execution_id: job.id, chain_depth: inputOf(job).chain_depth ?? 0, origin_id: inputOf(job).origin_id ?? job.id, ...data }, ownerOf(job)).then(
      () => undefined,
      (e) => rt.logger.debug({ err: (e as Error).message, type }, 'workflow event not published'),
    );
  rt.pipelines.define({
    name: WORKFLOW_PIPELINE,
    stages: [{ name: 'run', run: (ctx) => runExecution(rt, ctx.job, ctx.signal) }],
    async onStart(job) {
      await emit('workflow.started', job, { workflow_name: inputOf(job).workflow_name });
    },
    async onComplete(job, output) {
      const x = await rt.store.repo('workflow_executions').get(job.id);
      await emit('workflow.completed', job, { status: x?.status ?? output.status, steps_run: (x?.execution_log as { status: string }[] | undefined)?.filter((e) => e.status === 'completed').length ?? 0 });
    },
    async onFail(job, error) {
      await failExecution(rt, job.id, job.error ?? error.message);
      await emit('workflow.failed', job, { error: job.error ?? error.message });
    },
    // a run that ended after its owner was erased (or its job went with them): the extraction jobs its steps
    // started go, with what they stored, and its extractor steps' charges
    discard: (job) => removeStepWork(rt, inputOf(job)),
  });
  if (rt.role === 'server') startTriggers(rt);
}
