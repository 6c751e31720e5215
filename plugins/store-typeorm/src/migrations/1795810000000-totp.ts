import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, unique } from './schema.js';

/** The TOTP second factor of users (one per user; the secret encrypted at rest). */
export class Totp1795810000000 implements MigrationInterface {
  name = 'Totp1795810000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'user_totp',
      [c.pk('id'), c.ref('user_id'), c.text('secret'), c.date('enabled_at', { nullable: true }), c.bigint('last_step', { nullable: true }), c.date('created_at')],
      [unique('user_totp', 'user_id')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('user_totp', true);
  }
}
