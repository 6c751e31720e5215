import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index } from './schema.js';

/**
 * Webhook subscriptions (spec §4.15): `webhooks`; their delivery log is `webhook_deliveries` (webhook_id was
 * there from the start), which gains the latency of the last attempt and an index to list a webhook's log.
 */
export class Webhooks1795600000000 implements MigrationInterface {
  name = 'Webhooks1795600000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    await createTable(
      qr,
      'webhooks',
      [
        c.pk('id'),
        c.ref('user_id'),
        c.ref('organization_id', { nullable: true }),
        c.string('url', 2048),
        c.json('events'),
        c.string('secret', 255),
        c.string('description', 500, { nullable: true }),
        c.bool('active'),
        c.int('consecutive_failures'),
        c.date('last_delivery_at', { nullable: true }),
        c.string('last_delivery_status', 16, { nullable: true }),
        c.date('created_at'),
        c.date('updated_at'),
      ],
      [index('webhooks', 'user_id', 'created_at'), index('webhooks', 'organization_id')],
    );
    await qr.addColumn('webhook_deliveries', new TableColumn(c.int('latency_ms', { nullable: true })));
    await qr.createIndex('webhook_deliveries', index('webhook_deliveries', 'webhook_id', 'created_at'));
  }

  async down(qr: QueryRunner): Promise<void> {
    await qr.dropIndex('webhook_deliveries', 'IDX_webhook_deliveries_webhook_id_created_at');
    await qr.dropColumn('webhook_deliveries', 'latency_ms');
    await qr.dropTable('webhooks', true);
  }
}
