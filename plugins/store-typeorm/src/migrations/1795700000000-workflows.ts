import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index, unique } from './schema.js';

/** Workflows, their executions (with the per-step log), integrations, and the claims of scheduled ticks. */
export class Workflows1795700000000 implements MigrationInterface {
  name = 'Workflows1795700000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    const owned = [c.ref('user_id'), c.ref('organization_id', { nullable: true })];
    await createTable(
      qr,
      'workflows',
      [
        c.pk('id'),
        ...owned,
        c.string('name', 255),
        c.text('description', { nullable: true }),
        c.json('definition'),
        c.string('trigger_type', 16),
        c.json('trigger_config'),
        c.bool('enabled'),
        c.date('schedule_from', { nullable: true }),
        c.date('created_at'),
        c.date('updated_at'),
      ],
      [index('workflows', 'user_id', 'created_at'), index('workflows', 'organization_id'), index('workflows', 'trigger_type', 'enabled')],
    );
    await createTable(
      qr,
      'workflow_executions',
      [
        c.pk('id'),
        ...owned,
        c.ref('workflow_id'),
        c.string('status', 16),
        c.string('triggered_by', 16),
        c.json('trigger_data'),
        c.json('execution_log'),
        c.text('error', { nullable: true }),
        c.date('started_at'),
        c.date('completed_at', { nullable: true }),
      ],
      [index('workflow_executions', 'workflow_id', 'started_at')],
    );
    await createTable(
      qr,
      'integrations',
      [c.pk('id'), ...owned, c.ref('workflow_id', { nullable: true }), c.string('name', 255), c.string('integration_type', 16), c.json('config'), c.text('secrets', { nullable: true }), c.date('created_at'), c.date('updated_at')],
      [index('integrations', 'user_id', 'created_at'), index('integrations', 'workflow_id')],
    );
    await createTable(
      qr,
      'workflow_ticks',
      [c.pk('id'), c.ref('workflow_id'), c.date('tick_time'), c.ref('execution_id'), c.date('created_at')],
      [unique('workflow_ticks', 'workflow_id', 'tick_time')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['workflow_ticks', 'integrations', 'workflow_executions', 'workflows']) await qr.dropTable(t, true);
  }
}
