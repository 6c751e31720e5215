import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/** Stage messages of the embedded queue, kept so that a restart on embedded defaults loses no job. */
export class StageMessages1795500000000 implements MigrationInterface {
  name = 'StageMessages1795500000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'stage_messages',
      [c.pk('id'), c.string('queue', 128), c.ref('job_id'), c.json('body'), c.date('available_at'), c.date('created_at')],
      [index('stage_messages', 'created_at'), index('stage_messages', 'job_id')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('stage_messages', true);
  }
}
