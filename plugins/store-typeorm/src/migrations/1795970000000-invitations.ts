import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/** Organization invitations: nobody becomes a member without accepting (spec §4.14, members). */
export class Invitations1795970000000 implements MigrationInterface {
  name = 'Invitations1795970000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'invitations',
      [
        c.pk('id'),
        c.ref('organization_id'),
        c.ref('user_id', { nullable: true }),
        c.string('email', 255, { nullable: true }),
        c.string('role', 16),
        c.string('status', 16),
        c.ref('invited_by'),
        c.date('expires_at'),
        c.date('created_at'),
        c.date('updated_at'),
      ],
      [index('invitations', 'organization_id', 'status'), index('invitations', 'user_id'), index('invitations', 'email')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropTable('invitations', true);
  }
}
