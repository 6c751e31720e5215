import { createHash } from 'node:crypto';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index, unique } from './schema.js';

/** The id the engine derives for (workflow, type): workflows/executions.ts derivedId('trigger', workflow_id, type). */
function derivedId(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A workflow keeps every trigger it is given (scheduled, webhook, event) in `workflow_triggers`, one of
 * each type; `workflow_inputs` records the documents of a schedule's input each workflow has run. Each
 * existing workflow's one automatic trigger becomes its first row.
 */
export class WorkflowTriggers1795990000000 implements MigrationInterface {
  name = 'WorkflowTriggers1795990000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'workflow_triggers',
      [c.pk('id'), c.ref('workflow_id'), c.string('type', 16), c.string('event', 64, { nullable: true }), c.json('config'), c.date('schedule_from', { nullable: true }), c.date('created_at'), c.date('updated_at')],
      [unique('workflow_triggers', 'workflow_id', 'type'), index('workflow_triggers', 'type', 'event')],
    );
    await createTable(
      qr,
      'workflow_inputs',
      [c.pk('id'), c.ref('workflow_id'), c.ref('document_id'), c.ref('execution_id'), c.date('created_at'), c.date('updated_at')],
      [unique('workflow_inputs', 'workflow_id', 'document_id')],
    );
    const rows: { id: string; trigger_type: string; trigger_config: string | null; schedule_from: unknown; created_at: unknown; updated_at: unknown }[] = await qr.query(
      "SELECT id, trigger_type, trigger_config, schedule_from, created_at, updated_at FROM workflows WHERE trigger_type IN ('scheduled', 'webhook', 'event')",
    );
    for (const w of rows) {
      let config: Record<string, unknown> = {};
      try {
        config = JSON.parse(w.trigger_config ?? '{}') ?? {};
      } catch {
        config = {};
      }
      const event = w.trigger_type === 'event' && typeof config.event === 'string' ? config.event : null;
      await qr.query('INSERT INTO workflow_triggers (id, workflow_id, type, event, config, schedule_from, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        derivedId('trigger', w.id, w.trigger_type),
        w.id,
        w.trigger_type,
        event,
        JSON.stringify(config),
        w.schedule_from ?? null,
        w.created_at,
        w.updated_at,
      ]);
    }
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['workflow_inputs', 'workflow_triggers']) await qr.dropTable(t, true);
  }
}
