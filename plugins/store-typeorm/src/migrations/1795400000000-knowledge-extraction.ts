import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index, unique } from './schema.js';

/** Collections / knowledge bases, chat sessions and messages, extraction schemas, extractions, batches, ground truth. */
export class KnowledgeExtraction1795400000000 implements MigrationInterface {
  name = 'KnowledgeExtraction1795400000000';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    const owned = [c.ref('user_id'), c.ref('organization_id', { nullable: true })];
    await createTable(
      qr,
      'collections',
      [c.pk('id'), ...owned, c.string('name', 255), c.text('description', { nullable: true }), c.json('settings'), c.string('template_id', 64, { nullable: true }), c.date('created_at'), c.date('updated_at')],
      [index('collections', 'user_id', 'created_at'), index('collections', 'organization_id')],
    );
    await createTable(
      qr,
      'collection_documents',
      [c.pk('id'), c.ref('collection_id'), c.ref('document_id'), c.ref('user_id'), c.date('created_at')],
      [unique('collection_documents', 'collection_id', 'document_id'), index('collection_documents', 'document_id')],
    );
    await createTable(
      qr,
      'chat_sessions',
      [c.pk('id'), ...owned, c.ref('knowledge_base_id', { nullable: true }), c.string('title', 255, { nullable: true }), c.date('created_at'), c.date('updated_at')],
      [index('chat_sessions', 'user_id'), index('chat_sessions', 'knowledge_base_id')],
    );
    await createTable(
      qr,
      'chat_messages',
      [
        c.pk('id'),
        ...owned,
        c.ref('session_id'),
        c.ref('knowledge_base_id', { nullable: true }),
        c.string('role', 16),
        c.text('content'),
        c.text('query', { nullable: true }),
        c.string('mode', 16, { nullable: true }),
        c.json('citations', { nullable: true }),
        c.double('confidence', { nullable: true }),
        c.int('response_time_ms', { nullable: true }),
        c.string('feedback', 16, { nullable: true }),
        c.date('created_at'),
      ],
      [index('chat_messages', 'session_id', 'created_at'), index('chat_messages', 'knowledge_base_id', 'created_at')],
    );
    await createTable(
      qr,
      'schemas',
      [c.pk('id'), ...owned, c.string('name', 255), c.text('description', { nullable: true }), c.text('instructions', { nullable: true }), c.json('fields'), c.json('settings'), c.bool('is_shared'), c.date('created_at'), c.date('updated_at')],
      [index('schemas', 'user_id', 'created_at'), index('schemas', 'organization_id')],
    );
    await createTable(
      qr,
      'extractions',
      [
        c.pk('id'),
        ...owned,
        c.ref('document_id', { nullable: true }),
        c.ref('schema_id', { nullable: true }),
        c.ref('job_id', { nullable: true }),
        c.json('fields'),
        c.json('data'),
        c.json('field_results'),
        c.json('corrections'),
        c.double('confidence'),
        c.int('duration_ms'),
        c.date('created_at'),
        c.date('updated_at'),
      ],
      [index('extractions', 'document_id'), index('extractions', 'user_id', 'created_at'), index('extractions', 'job_id')],
    );
    await createTable(
      qr,
      'extract_batches',
      [c.pk('id'), ...owned, c.string('name', 255, { nullable: true }), c.string('status', 16), c.int('progress'), c.json('document_ids'), c.ref('schema_id'), c.json('config', { nullable: true }), c.json('results'), c.date('created_at'), c.date('updated_at')],
      [index('extract_batches', 'user_id', 'created_at')],
    );
    await createTable(
      qr,
      'ground_truth',
      [c.pk('id'), ...owned, c.ref('document_id'), c.ref('schema_id', { nullable: true }), c.json('field_values'), c.text('notes', { nullable: true }), c.date('created_at'), c.date('updated_at')],
      [index('ground_truth', 'document_id'), index('ground_truth', 'user_id')],
    );
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['ground_truth', 'extract_batches', 'extractions', 'schemas', 'chat_messages', 'chat_sessions', 'collection_documents', 'collections']) await qr.dropTable(t, true);
  }
}
