import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/** Saved generation templates (spec §4.6). Generation jobs are rows of `jobs` (type generate). */
export class Generation1795900000000 implements MigrationInterface {
  name = 'Generation1795900000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'generation_templates',
      [
        c.pk('id'),
        c.ref('user_id'),
        c.ref('organization_id', { nullable: true }),
        c.string('name', 255),
        c.text('description', { nullable: true }),
        c.text('template_prompt'),
        c.string('output_format', 32),
        c.json('settings'),
        c.bool('is_shared'),
        c.date('created_at'),
        c.date('updated_at'),
      ],
      [index('generation_templates', 'user_id', 'created_at'), index('generation_templates', 'organization_id', 'is_shared')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('generation_templates', true);
  }
}
