/**
 * One EntitySchema per table in core's `Tables`. The mapped type makes the compiler insist on an entity for
 * every table and a column for every record field, so a table added in core fails to build until it is here.
 * The database schema itself comes from the migrations (see migrations/index.ts), never from these entities.
 */
import { EntitySchema } from 'typeorm';
import type { EntitySchemaColumnOptions } from 'typeorm';
import type { TableName, Tables } from '@quire/core';
import { col } from './columns.js';

type Columns<T> = { [K in keyof T]-?: EntitySchemaColumnOptions };

function entity<N extends TableName>(name: N, columns: Columns<Tables[N]>): EntitySchema<Tables[N]> {
  return new EntitySchema<Tables[N]>({ name, tableName: name, columns: columns as never });
}

const owned = { user_id: col.ref(), organization_id: col.ref({ nullable: true }) };

export const ENTITIES: { [N in TableName]: EntitySchema<Tables[N]> } = {
  users: entity('users', {
    id: col.pk(),
    email: col.string(255),
    name: col.string(255, { nullable: true }),
    password_hash: col.string(255, { nullable: true }),
    plan: col.string(16),
    avatar_url: col.string(2048, { nullable: true }),
    created_at: col.date(),
    updated_at: col.date(),
  }),
  api_keys: entity('api_keys', {
    id: col.pk(),
    user_id: col.ref(),
    name: col.string(255),
    prefix: col.string(32),
    key_hash: col.string(128),
    created_at: col.date(),
    last_used_at: col.date({ nullable: true }),
    revoked_at: col.date({ nullable: true }),
    expires_at: col.date({ nullable: true }),
  }),
  organizations: entity('organizations', {
    id: col.pk(),
    name: col.string(255),
    slug: col.string(255),
    settings: col.json(),
    created_by: col.ref(),
    created_at: col.date(),
    updated_at: col.date(),
  }),
  memberships: entity('memberships', {
    id: col.pk(),
    organization_id: col.ref(),
    user_id: col.ref(),
    role: col.string(16),
    created_at: col.date(),
  }),
  documents: entity('documents', {
    id: col.pk(),
    ...owned,
    name: col.string(1024),
    status: col.string(16),
    file_type: col.string(16),
    mime_type: col.string(255),
    file_size: col.bigint(),
    sha256: col.string(64, { nullable: true }),
    pages: col.int({ nullable: true }),
    storage_key: col.string(512),
    content_key: col.string(512, { nullable: true }),
    parsing_config: col.json({ nullable: true }),
    knowledge_base_id: col.ref({ nullable: true }),
    error: col.text({ nullable: true }),
    issues: col.json({ nullable: true }),
    processing_ms: col.int({ nullable: true }),
    created_at: col.date(),
    updated_at: col.date(),
  }),
  jobs: entity('jobs', {
    id: col.pk(),
    ...owned,
    type: col.string(64),
    status: col.string(16),
    progress: col.double(),
    document_id: col.ref({ nullable: true }),
    input: col.json({ nullable: true }),
    result: col.json({ nullable: true }),
    error: col.text({ nullable: true }),
    webhook_url: col.string(2048, { nullable: true }),
    created_at: col.date(),
    updated_at: col.date(),
    completed_at: col.date({ nullable: true }),
  }),
  job_stages: entity('job_stages', {
    id: col.pk(),
    job_id: col.ref(),
    stage: col.string(64),
    status: col.string(16),
    attempts: col.int(),
    worker: col.string(255, { nullable: true }),
    error: col.text({ nullable: true }),
    started_at: col.date(),
    completed_at: col.date({ nullable: true }),
  }),
  chunks: entity('chunks', {
    id: col.pk(),
    ...owned,
    document_id: col.ref(),
    idx: col.int(),
    page: col.int(),
    content: col.text(),
    type: col.string(16),
    confidence: col.double(),
    bbox: col.json({ nullable: true }),
    span_start: col.int(),
    span_end: col.int(),
    metadata: col.json({ nullable: true }),
  }),
  usage: entity('usage', {
    id: col.pk(),
    ...owned,
    operation: col.string(64),
    units: col.double(),
    credits: col.double(),
    resource_id: col.string(128, { nullable: true }),
    created_at: col.date(),
  }),
  webhook_deliveries: entity('webhook_deliveries', {
    id: col.pk(),
    user_id: col.ref({ nullable: true }),
    webhook_id: col.ref({ nullable: true }),
    url: col.string(2048),
    event: col.string(128),
    payload: col.text(),
    secret: col.string(255),
    status: col.string(16),
    attempts: col.int(),
    next_attempt_at: col.date(),
    last_status: col.int({ nullable: true }),
    last_error: col.text({ nullable: true }),
    created_at: col.date(),
    updated_at: col.date(),
  }),
  rate_counters: entity('rate_counters', {
    id: col.pk(128),
    count: col.int(),
    expires_at: col.date(),
  }),
  presets: entity('presets', {
    id: col.pk(),
    ...owned,
    name: col.string(255),
    description: col.text({ nullable: true }),
    config: col.json(),
    scope: col.string(16),
    created_at: col.date(),
    updated_at: col.date(),
  }),
  presigned_uploads: entity('presigned_uploads', {
    id: col.pk(),
    ...owned,
    document_id: col.ref(),
    filename: col.string(1024),
    content_type: col.string(255),
    file_size: col.bigint(),
    token_hash: col.string(128),
    expires_at: col.date(),
    used_at: col.date({ nullable: true }),
    created_at: col.date(),
  }),
};
