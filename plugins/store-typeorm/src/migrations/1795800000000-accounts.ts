import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index, unique } from './schema.js';

/** Browser sessions (hashed token, expiry, last seen) and the scopes of API keys (null: full). */
export class Accounts1795800000000 implements MigrationInterface {
  name = 'Accounts1795800000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'sessions',
      [c.pk('id'), c.ref('user_id'), c.string('token_hash', 64), c.date('created_at'), c.date('last_seen_at'), c.date('expires_at'), c.string('ip', 64, { nullable: true }), c.string('user_agent', 512, { nullable: true })],
      [unique('sessions', 'token_hash'), index('sessions', 'user_id'), index('sessions', 'expires_at')],
    );
    await qr.addColumn('api_keys', new TableColumn(c.json('scopes', { nullable: true })));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropColumn('api_keys', 'scopes');
    await qr.dropTable('sessions', true);
  }
}
