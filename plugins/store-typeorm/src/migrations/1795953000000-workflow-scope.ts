import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, dialectOf, index } from './schema.js';

/**
 * The random secret of a workflow's inbound webhook URL (encrypted, rotatable), and indexes that count the
 * running executions of an owner (the per-owner limit of running executions).
 */
export class WorkflowScope1795953000000 implements MigrationInterface {
  name = 'WorkflowScope1795953000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await qr.addColumn('workflows', new TableColumn(c.text('trigger_secret', { nullable: true })));
    await qr.createIndex('workflow_executions', index('workflow_executions', 'organization_id', 'status'));
    await qr.createIndex('workflow_executions', index('workflow_executions', 'user_id', 'status'));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('workflow_executions', 'IDX_workflow_executions_user_id_status');
    await qr.dropIndex('workflow_executions', 'IDX_workflow_executions_organization_id_status');
    await qr.dropColumn('workflows', 'trigger_secret');
  }
}
