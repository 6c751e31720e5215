import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/** The audit log (spec §8.4): privacy actions, key and role changes, deletions; kept 3 years. */
export class AuditLog1795850000000 implements MigrationInterface {
  name = 'AuditLog1795850000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'audit_log',
      [c.pk('id'), c.ref('user_id'), c.ref('organization_id', { nullable: true }), c.string('action', 64), c.string('target_type', 32), c.string('target_id', 64, { nullable: true }), c.json('details', { nullable: true }), c.string('ip', 64, { nullable: true }), c.date('created_at')],
      [index('audit_log', 'user_id', 'created_at'), index('audit_log', 'organization_id', 'created_at'), index('audit_log', 'created_at')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('audit_log', true);
  }
}
