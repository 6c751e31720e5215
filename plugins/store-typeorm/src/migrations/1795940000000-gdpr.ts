import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/** Privacy (spec §4.11): the consent history, data export requests and account deletion requests. */
export class Gdpr1795940000000 implements MigrationInterface {
  name = 'Gdpr1795940000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    const owned = [c.ref('user_id'), c.ref('organization_id', { nullable: true })];
    await createTable(
      qr,
      'consents',
      [c.pk('id'), ...owned, c.string('consent_type', 32), c.bool('granted'), c.string('version', 32), c.string('ip', 64, { nullable: true }), c.date('created_at')],
      [index('consents', 'user_id', 'created_at'), index('consents', 'organization_id')],
    );
    await createTable(
      qr,
      'data_export_requests',
      [
        c.pk('id'),
        ...owned,
        c.string('status', 16),
        c.ref('job_id', { nullable: true }),
        c.string('file_key', 255, { nullable: true }),
        c.bigint('file_size', { nullable: true }),
        c.text('error', { nullable: true }),
        c.date('expires_at', { nullable: true }),
        c.date('created_at'),
        c.date('updated_at'),
        c.date('completed_at', { nullable: true }),
      ],
      [index('data_export_requests', 'user_id', 'created_at'), index('data_export_requests', 'status')],
    );
    await createTable(
      qr,
      'deletion_requests',
      [
        c.pk('id'),
        ...owned,
        c.string('status', 16),
        c.text('reason', { nullable: true }),
        c.bool('immediate'),
        c.date('scheduled_at'),
        c.date('created_at'),
        c.date('updated_at'),
        c.date('cancelled_at', { nullable: true }),
        c.date('completed_at', { nullable: true }),
      ],
      [index('deletion_requests', 'user_id', 'created_at'), index('deletion_requests', 'status', 'scheduled_at')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['deletion_requests', 'data_export_requests', 'consents']) await qr.dropTable(t, true);
  }
}
