import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/** Split (spec §4.7): saved configurations, the sections of split jobs (jobs of type 'split'), batches. */
export class Split1795910000000 implements MigrationInterface {
  name = 'Split1795910000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    const owned = [c.ref('user_id'), c.ref('organization_id', { nullable: true })];
    await createTable(
      qr,
      'split_configs',
      [c.pk('id'), ...owned, c.string('name', 255), c.text('description', { nullable: true }), c.text('instructions', { nullable: true }), c.json('sections', { nullable: true }), c.json('settings'), c.date('created_at'), c.date('updated_at')],
      [index('split_configs', 'user_id', 'created_at'), index('split_configs', 'organization_id')],
    );
    await createTable(
      qr,
      'split_sections',
      [
        c.pk('id'),
        ...owned,
        c.ref('job_id'),
        c.ref('parent_document_id', { nullable: true }),
        c.ref('document_id', { nullable: true }),
        c.int('idx'),
        c.string('section_name', 255),
        c.string('section_type', 16),
        c.int('page_start'),
        c.int('page_end'),
        c.double('confidence'),
        c.string('label', 64, { nullable: true }),
        c.json('metadata', { nullable: true }),
        c.date('created_at'),
        c.date('updated_at'),
      ],
      [index('split_sections', 'job_id', 'idx'), index('split_sections', 'parent_document_id'), index('split_sections', 'document_id')],
    );
    await createTable(
      qr,
      'split_batches',
      [c.pk('id'), ...owned, c.string('status', 16), c.ref('config_id', { nullable: true }), c.text('webhook_url', { nullable: true }), c.json('job_ids'), c.int('total_count'), c.date('created_at'), c.date('updated_at')],
      [index('split_batches', 'user_id', 'created_at')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['split_batches', 'split_sections', 'split_configs']) await qr.dropTable(t, true);
  }
}
