import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, dialectOf } from './schema.js';

/** The counts behind a job's `progress` (pages read, OCRed, chunks made and indexed), as the stages report them. */
export class JobProgressDetail1795990800000 implements MigrationInterface {
  name = 'JobProgressDetail1795990800000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await qr.addColumn('jobs', new TableColumn(c.json('progress_detail', { nullable: true })));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('jobs', 'progress_detail');
  }
}
