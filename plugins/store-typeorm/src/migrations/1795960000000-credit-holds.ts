import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/**
 * Credit reservations: `credit_holds` keeps what work without a job row (a chat turn) has reserved until it
 * is charged or released; `locks` holds one row per named lock (Store.lock: the row is locked FOR UPDATE on
 * MySQL, so that checking an account's balance and recording a hold happen as one step).
 */
export class CreditHolds1795960000000 implements MigrationInterface {
  name = 'CreditHolds1795960000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'credit_holds',
      [c.pk('id'), c.ref('user_id'), c.ref('organization_id', { nullable: true }), c.string('operation', 64), c.double('credits'), c.date('created_at'), c.date('expires_at')],
      [index('credit_holds', 'user_id', 'organization_id'), index('credit_holds', 'organization_id'), index('credit_holds', 'expires_at')],
    );
    await createTable(qr, 'locks', [c.pk('id', 128), c.date('created_at')]);
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['locks', 'credit_holds']) await qr.dropTable(t, true);
  }
}
