import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnsFor, createTable, dialectOf, index, unique } from './schema.js';

/** The first schema: every table of core's records at version 1. */
export class Initial1795297866386 implements MigrationInterface {
  name = 'Initial1795297866386';

  async up(qr: QueryRunner): Promise<void> {
    const c = columnsFor(dialectOf(qr));
    const owned = [c.ref('user_id'), c.ref('organization_id', { nullable: true })];

    await createTable(qr, 'users', [
      c.pk('id'),
      c.string('email', 255),
      c.string('name', 255, { nullable: true }),
      c.string('password_hash', 255, { nullable: true }),
      c.string('plan', 16),
      c.string('avatar_url', 2048, { nullable: true }),
      c.date('created_at'),
      c.date('updated_at'),
    ], [unique('users', 'email')]);

    await createTable(qr, 'api_keys', [
      c.pk('id'),
      c.ref('user_id'),
      c.string('name', 255),
      c.string('prefix', 32),
      c.string('key_hash', 128),
      c.date('created_at'),
      c.date('last_used_at', { nullable: true }),
      c.date('revoked_at', { nullable: true }),
      c.date('expires_at', { nullable: true }),
    ], [unique('api_keys', 'key_hash'), index('api_keys', 'user_id')]);

    await createTable(qr, 'organizations', [
      c.pk('id'),
      c.string('name', 255),
      c.string('slug', 255),
      c.json('settings'),
      c.ref('created_by'),
      c.date('created_at'),
      c.date('updated_at'),
    ], [unique('organizations', 'slug')]);

    await createTable(qr, 'memberships', [
      c.pk('id'),
      c.ref('organization_id'),
      c.ref('user_id'),
      c.string('role', 16),
      c.date('created_at'),
    ], [unique('memberships', 'organization_id', 'user_id'), index('memberships', 'user_id')]);

    await createTable(qr, 'documents', [
      c.pk('id'),
      ...owned,
      c.string('name', 1024),
      c.string('status', 16),
      c.string('file_type', 16),
      c.string('mime_type', 255),
      c.bigint('file_size'),
      c.string('sha256', 64, { nullable: true }),
      c.int('pages', { nullable: true }),
      c.string('storage_key', 512),
      c.string('content_key', 512, { nullable: true }),
      c.json('parsing_config', { nullable: true }),
      c.ref('knowledge_base_id', { nullable: true }),
      c.text('error', { nullable: true }),
      c.json('issues', { nullable: true }),
      c.int('processing_ms', { nullable: true }),
      c.date('created_at'),
      c.date('updated_at'),
    ], [index('documents', 'user_id', 'created_at'), index('documents', 'status'), index('documents', 'organization_id')]);

    await createTable(qr, 'jobs', [
      c.pk('id'),
      ...owned,
      c.string('type', 64),
      c.string('status', 16),
      c.double('progress'),
      c.ref('document_id', { nullable: true }),
      c.json('input', { nullable: true }),
      c.json('result', { nullable: true }),
      c.text('error', { nullable: true }),
      c.string('webhook_url', 2048, { nullable: true }),
      c.date('created_at'),
      c.date('updated_at'),
      c.date('completed_at', { nullable: true }),
    ], [index('jobs', 'document_id'), index('jobs', 'user_id', 'created_at')]);

    await createTable(qr, 'job_stages', [
      c.pk('id'),
      c.ref('job_id'),
      c.string('stage', 64),
      c.string('status', 16),
      c.int('attempts'),
      c.string('worker', 255, { nullable: true }),
      c.text('error', { nullable: true }),
      c.date('started_at'),
      c.date('completed_at', { nullable: true }),
    ], [unique('job_stages', 'job_id', 'stage')]);

    await createTable(qr, 'chunks', [
      c.pk('id', 80), // chunk ids are '<document id>:<index>'
      ...owned,
      c.ref('document_id'),
      c.int('idx'),
      c.int('page'),
      c.text('content'),
      c.string('type', 16),
      c.double('confidence'),
      c.json('bbox', { nullable: true }),
      c.int('span_start'),
      c.int('span_end'),
      c.json('metadata', { nullable: true }),
    ], [index('chunks', 'document_id'), index('chunks', 'user_id')]);

    await createTable(qr, 'usage', [
      c.pk('id'),
      ...owned,
      c.string('operation', 64),
      c.double('units'),
      c.double('credits'),
      c.string('resource_id', 128, { nullable: true }),
      c.date('created_at'),
    ], [index('usage', 'user_id', 'created_at')]);

    await createTable(qr, 'webhook_deliveries', [
      c.pk('id'),
      c.ref('user_id', { nullable: true }),
      c.ref('webhook_id', { nullable: true }),
      c.string('url', 2048),
      c.string('event', 128),
      c.text('payload'),
      c.string('secret', 255),
      c.string('status', 16),
      c.int('attempts'),
      c.date('next_attempt_at'),
      c.int('last_status', { nullable: true }),
      c.text('last_error', { nullable: true }),
      c.date('created_at'),
      c.date('updated_at'),
    ], [index('webhook_deliveries', 'status', 'next_attempt_at')]);

    await createTable(qr, 'rate_counters', [
      c.pk('id', 128),
      c.int('count'),
      c.date('expires_at'),
    ], [index('rate_counters', 'expires_at')]);

    await createTable(qr, 'presets', [
      c.pk('id'),
      ...owned,
      c.string('name', 255),
      c.text('description', { nullable: true }),
      c.json('config'),
      c.string('scope', 16),
      c.date('created_at'),
      c.date('updated_at'),
    ], [index('presets', 'user_id')]);

    await createTable(qr, 'presigned_uploads', [
      c.pk('id'),
      ...owned,
      c.ref('document_id'),
      c.string('filename', 1024),
      c.string('content_type', 255),
      c.bigint('file_size'),
      c.string('token_hash', 128),
      c.date('expires_at'),
      c.date('used_at', { nullable: true }),
      c.date('created_at'),
    ], [index('presigned_uploads', 'token_hash')]);
  }

  async down(qr: QueryRunner): Promise<void> {
    for (const t of ['presigned_uploads', 'presets', 'rate_counters', 'webhook_deliveries', 'usage', 'chunks', 'job_stages', 'jobs', 'documents', 'memberships', 'organizations', 'api_keys', 'users']) {
      await qr.dropTable(t, true);
    }
  }
}
