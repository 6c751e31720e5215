import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/** Edit (spec §4.5): edit jobs, filled outputs, projects, configs, vocabulary, the per-field audit, batches. */
export class Edit1795920000000 implements MigrationInterface {
  name = 'Edit1795920000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    const owned = [c.ref('user_id'), c.ref('organization_id', { nullable: true })];
    await createTable(
      qr,
      'edit_jobs',
      [
        c.pk('id'),
        ...owned,
        c.ref('document_id'),
        c.ref('project_id', { nullable: true }),
        c.ref('batch_id', { nullable: true }),
        c.string('status', 16),
        c.int('progress'),
        c.json('input', { nullable: true }),
        c.json('detected_elements', { nullable: true }),
        c.json('fill_mappings', { nullable: true }),
        c.ref('edit_id', { nullable: true }),
        c.text('error', { nullable: true }),
        c.date('created_at'),
        c.date('updated_at'),
        c.date('completed_at', { nullable: true }),
      ],
      [index('edit_jobs', 'user_id', 'created_at'), index('edit_jobs', 'document_id'), index('edit_jobs', 'project_id', 'created_at'), index('edit_jobs', 'batch_id')],
    );
    await createTable(
      qr,
      'edits',
      [
        c.pk('id'),
        ...owned,
        c.ref('edit_job_id'),
        c.ref('document_id'),
        c.ref('parent_edit_id', { nullable: true }),
        c.json('filled_elements'),
        c.string('output_key', 255),
        c.string('output_name', 255),
        c.string('output_mime', 64),
        c.int('output_size'),
        c.json('warnings'),
        c.json('verification', { nullable: true }),
        c.json('pages_modified'),
        c.date('created_at'),
      ],
      [index('edits', 'edit_job_id', 'created_at'), index('edits', 'document_id')],
    );
    await createTable(
      qr,
      'edit_projects',
      [c.pk('id'), ...owned, c.string('name', 255), c.ref('document_id'), c.ref('edit_config_id', { nullable: true }), c.ref('edit_job_id', { nullable: true }), c.date('created_at'), c.date('updated_at')],
      [index('edit_projects', 'user_id', 'created_at'), index('edit_projects', 'organization_id')],
    );
    await createTable(
      qr,
      'edit_configs',
      [c.pk('id'), ...owned, c.string('name', 255), c.text('description', { nullable: true }), c.text('instructions', { nullable: true }), c.string('formatting_color', 32, { nullable: true }), c.json('detection_settings'), c.json('fill_settings'), c.date('created_at'), c.date('updated_at')],
      [index('edit_configs', 'organization_id', 'created_at')],
    );
    await createTable(
      qr,
      'edit_vocabulary',
      [c.pk('id'), ...owned, c.string('canonical_term', 255), c.json('aliases'), c.date('created_at'), c.date('updated_at')],
      [index('edit_vocabulary', 'organization_id', 'created_at')],
    );
    await createTable(
      qr,
      'edit_audit',
      [
        c.pk('id'),
        ...owned,
        c.ref('edit_id'),
        c.ref('edit_job_id'),
        c.ref('document_id'),
        c.string('element_id', 512),
        c.text('label'),
        c.text('value', { nullable: true }),
        c.string('source', 16),
        c.text('reasoning', { nullable: true }),
        c.date('created_at'),
      ],
      [index('edit_audit', 'user_id', 'created_at'), index('edit_audit', 'document_id', 'created_at'), index('edit_audit', 'edit_id')],
    );
    await createTable(
      qr,
      'edit_batches',
      [c.pk('id'), ...owned, c.string('name', 255, { nullable: true }), c.string('status', 16), c.json('document_ids'), c.json('config'), c.ref('edit_config_id', { nullable: true }), c.json('jobs'), c.int('progress'), c.date('created_at'), c.date('updated_at'), c.date('completed_at', { nullable: true })],
      [index('edit_batches', 'user_id', 'created_at')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['edit_batches', 'edit_audit', 'edit_vocabulary', 'edit_configs', 'edit_projects', 'edits', 'edit_jobs']) await qr.dropTable(t, true);
  }
}
