/**
 * Stored records. Every resource a user owns carries `user_id` and an optional `organization_id`.
 * Times are Date objects; the API boundary converts them (epoch seconds in /v1, ISO 8601 in /api).
 * JSON columns are typed as unknown objects and validated where they are produced.
 */
export type Plan = 'free' | 'standard' | 'premium';
export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface Owned {
  user_id: string;
  organization_id: string | null;
}

export interface UserRecord {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  plan: Plan;
  avatar_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRecord {
  id: string;
  user_id: string;
  name: string;
  /** first characters of the key, to recognise it in lists (never enough to use it). */
  prefix: string;
  /** sha256 hex of the whole key. */
  key_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date | null;
  /** what the key may do: ['read'] (GET and HEAD only) or ['full']; null or absent means full */
  scopes?: ApiKeyScope[] | null;
}

export type ApiKeyScope = 'read' | 'full';

export interface OrganizationRecord {
  id: string;
  name: string;
  slug: string;
  settings: Record<string, unknown>;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface MembershipRecord {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  created_at: Date;
}

/**
 * An invitation to join an organization. Nobody becomes a member without accepting: until then the
 * invitee has no access. Addressed by `email` (lowercased) or, when the inviter named a user id, `user_id`.
 */
export interface InvitationRecord {
  id: string;
  organization_id: string;
  /** the invitee when the invitation named a user id (else null: matched by email) */
  user_id: string | null;
  email: string | null;
  role: Role;
  status: 'pending' | 'accepted' | 'declined' | 'revoked';
  invited_by: string;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

export interface DocumentRecord extends Owned {
  id: string;
  name: string;
  status: JobStatus;
  /** detected format: pdf, docx, doc, rtf, txt, html, png, jpg, gif, bmp, tiff, csv, xlsx, xls, xlsm, xltx, xltm, qpw, pptx, ppt */
  file_type: string;
  mime_type: string;
  file_size: number;
  sha256: string | null;
  pages: number | null;
  /** key of the original file in blob storage */
  storage_key: string;
  /** key of the ParsedDocument JSON in blob storage, once parsed */
  content_key: string | null;
  parsing_config: Record<string, unknown> | null;
  /** knowledge base to add the document to once processed */
  knowledge_base_id: string | null;
  error: string | null;
  /** issues of a partially parsed document ({code, stage, page, message}[]) */
  issues: unknown[] | null;
  processing_ms: number | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * Counts of a job's work done so far, beside its one-number `progress` (written by its stages as they go).
 * Upload processing and parse jobs fill `pages_total`, `pages_read`, `pages_ocr`, `chunks` and (upload
 * processing) `chunks_indexed`; a count is absent until the stage that knows it has started.
 */
export type ProgressDetail = Record<string, number>;

export interface JobRecord extends Owned {
  id: string;
  /** 'document' (upload processing), 'parse' (async parse), 'extract', ... */
  type: string;
  status: JobStatus;
  progress: number;
  /** counts behind `progress` (see ProgressDetail); null until a stage reports one */
  progress_detail: ProgressDetail | null;
  document_id: string | null;
  input: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: string | null;
  webhook_url: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** One row per (job, stage): the marker that makes a stage run at most once to completion. */
export interface JobStageRecord {
  id: string;
  job_id: string;
  stage: string;
  status: 'running' | 'completed' | 'failed';
  attempts: number;
  worker: string | null;
  error: string | null;
  started_at: Date;
  completed_at: Date | null;
}

export interface ChunkRecord extends Owned {
  id: string;
  document_id: string;
  idx: number;
  page: number;
  content: string;
  type: 'text' | 'table';
  confidence: number;
  bbox: Record<string, number> | null;
  span_start: number;
  span_end: number;
  metadata: Record<string, unknown> | null;
}

export interface UsageRecord extends Owned {
  id: string;
  /** parse, ocr_agentic, extract, chat, generate */
  operation: string;
  units: number;
  credits: number;
  resource_id: string | null;
  created_at: Date;
}

/**
 * Credits reserved by work that has no job row (a chat turn) until it is charged or released; a hold past
 * expires_at (its process died) no longer counts.
 */
export interface CreditHoldRecord extends Owned {
  id: string;
  operation: string;
  credits: number;
  created_at: Date;
  expires_at: Date;
}

export interface WebhookDeliveryRecord {
  id: string;
  user_id: string | null;
  webhook_id: string | null;
  url: string;
  event: string;
  /** the exact bytes that are signed and sent */
  payload: string;
  /** HMAC key used for X-Svc-Signature */
  secret: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_error: string | null;
  /** how long the last attempt took, ms (null before the first) */
  latency_ms: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface RateCounterRecord {
  /** `${api_key_id}:${window}:${window_start_epoch}` */
  id: string;
  count: number;
  expires_at: Date;
}

export interface PresetRecord extends Owned {
  id: string;
  name: string;
  description: string | null;
  config: Record<string, unknown>;
  scope: 'user' | 'organization';
  created_at: Date;
  updated_at: Date;
}

export interface PresignedUploadRecord {
  id: string;
  user_id: string;
  organization_id: string | null;
  document_id: string;
  filename: string;
  content_type: string;
  file_size: number;
  token_hash: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

/** A collection (versioned API) and a knowledge base (application API) are one record seen through two APIs. */
export interface CollectionRecord extends Owned {
  id: string;
  name: string;
  description: string | null;
  /** {retrieval: {top_k, threshold, reranking}, chunking: {strategy, max_size, overlap}} */
  settings: Record<string, unknown>;
  template_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CollectionDocumentRecord {
  id: string;
  collection_id: string;
  document_id: string;
  /** who added it */
  user_id: string;
  created_at: Date;
}

export interface ChatSessionRecord extends Owned {
  id: string;
  knowledge_base_id: string | null;
  title: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ChatMessageRecord extends Owned {
  id: string;
  session_id: string;
  knowledge_base_id: string | null;
  role: 'user' | 'assistant';
  content: string;
  /** for assistant messages: the question answered */
  query: string | null;
  mode: string | null;
  /** [{chunk_id, document_id, page, score}] */
  citations: unknown[] | null;
  confidence: number | null;
  response_time_ms: number | null;
  feedback: 'thumbs_up' | 'thumbs_down' | null;
  created_at: Date;
}

export interface SchemaRecord extends Owned {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  fields: unknown[];
  settings: Record<string, unknown>;
  is_shared: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface ExtractionRecord extends Owned {
  id: string;
  /** null when the input was a URL (no stored document) */
  document_id: string | null;
  schema_id: string | null;
  job_id: string | null;
  /** inline field definitions when no schema was used */
  fields: unknown[];
  data: Record<string, unknown>;
  field_results: unknown[];
  corrections: unknown[];
  confidence: number;
  duration_ms: number;
  created_at: Date;
  updated_at: Date;
}

export interface ExtractBatchRecord extends Owned {
  id: string;
  name: string | null;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  progress: number;
  document_ids: string[];
  schema_id: string;
  config: Record<string, unknown> | null;
  /** {<document_id>: {success, extraction_id | error}} */
  results: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface GroundTruthRecord extends Owned {
  id: string;
  document_id: string;
  schema_id: string | null;
  field_values: Record<string, unknown>;
  notes: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A stage message waiting in the embedded (in-process) queue, kept in the database so that a restart
 * loses nothing: written when published, deleted once handled, rewritten when retried.
 */
export interface StageMessageRecord {
  /** the message id */
  id: string;
  /** `<pipeline>.<stage>` */
  queue: string;
  job_id: string;
  /** the whole StageMessage (with its attempt) */
  body: Record<string, unknown>;
  /** not delivered before (retry backoff) */
  available_at: Date;
  created_at: Date;
}

/**
 * A webhook subscription (spec §4.15, §6): events of its owner (the user's own resources, or its organization's
 * when organization_id is set) are POSTed to `url`, signed with `secret`.
 */
export interface WebhookRecord extends Owned {
  id: string;
  url: string;
  /** §6.1 event names, or ['*'] for every one */
  events: string[];
  /** HMAC key of X-Svc-Signature; kept as is (it must sign), shown only when created or rotated */
  secret: string;
  description: string | null;
  /** an inactive webhook gets no new deliveries, and its pending retries stop */
  active: boolean;
  /** deliveries that failed for good since the last one that succeeded */
  consecutive_failures: number;
  last_delivery_at: Date | null;
  last_delivery_status: 'delivered' | 'failed' | null;
  created_at: Date;
  updated_at: Date;
}

/** A workflow (spec §4.9): steps run in order, started by its trigger. */
export interface WorkflowRecord extends Owned {
  id: string;
  name: string;
  description: string | null;
  /** {steps: [{id, type, config}]} */
  definition: Record<string, unknown>;
  /** manual, scheduled, webhook, event */
  trigger_type: string;
  /** event: {event, filters}; scheduled: {cron_expression, timezone}; webhook: {} */
  trigger_config: Record<string, unknown>;
  enabled: boolean;
  /** a scheduled workflow's ticks are counted from here (set when its schedule is set or changed) */
  schedule_from: Date | null;
  /** the random secret of its inbound webhook URL, encrypted (infra/secrets.ts); new on each rotation */
  trigger_secret: string | null;
  created_at: Date;
  updated_at: Date;
}

/** One run of a workflow; its job (type 'workflow', pipeline `workflow`) has the same id. */
export interface WorkflowExecutionRecord extends Owned {
  id: string;
  workflow_id: string;
  /** running, completed, failed */
  status: string;
  /** manual, scheduled, webhook, event */
  triggered_by: string;
  trigger_data: Record<string, unknown>;
  /** per step: {step_id, type, status, duration_ms, input, output, error, started_at} */
  execution_log: unknown[];
  error: string | null;
  started_at: Date;
  completed_at: Date | null;
}

/** Where an integration step sends: messaging, email or webhook; secrets are encrypted (AES-256-GCM). */
export interface IntegrationRecord extends Owned {
  id: string;
  workflow_id: string | null;
  name: string;
  integration_type: string;
  /** the fields that are not secret */
  config: Record<string, unknown>;
  /** the secret fields as JSON, encrypted: base64 of iv | tag | ciphertext */
  secrets: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The claim of one scheduled tick: unique (workflow_id, tick_time), so that one process runs it. */
export interface WorkflowTickRecord {
  id: string;
  workflow_id: string;
  tick_time: Date;
  execution_id: string;
  created_at: Date;
}

/**
 * One automatic trigger of a workflow (scheduled, webhook or event): a workflow keeps each it was given
 * until it is removed. Its id is derived from (workflow_id, type): one of each type per workflow. The
 * workflow's trigger_type and trigger_config repeat its primary trigger (manual when it has none).
 */
export interface WorkflowTriggerRecord {
  id: string;
  workflow_id: string;
  /** scheduled, webhook, event */
  type: string;
  /** the event an event trigger listens to (null for the others), so that an event finds its triggers */
  event: string | null;
  /** event: {event, filters}; scheduled: {cron_expression, timezone, input}; webhook: {} */
  config: Record<string, unknown>;
  /** a schedule's ticks are counted from here (set when the schedule is set or changed) */
  schedule_from: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * A document of a schedule's input (a collection or knowledge base) given to a workflow: its execution.
 * The id is derived from (workflow_id, document_id): a document is run once per workflow, again only when
 * that execution failed.
 */
export interface WorkflowInputRecord {
  id: string;
  workflow_id: string;
  document_id: string;
  execution_id: string;
  created_at: Date;
  updated_at: Date;
}

/** A signed-in browser session: the cookie holds the token, the store only its SHA-256 hash. */
export interface SessionRecord {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ip: string | null;
  user_agent: string | null;
}

/** A user's TOTP second factor: pending until a first code confirms it; the secret is encrypted at rest. */
export interface TotpRecord {
  id: string;
  user_id: string;
  /** base32 secret, AES-256-GCM with the secrets key */
  secret: string;
  enabled_at: Date | null;
  /** the last 30-second step whose code was accepted: a code is used once */
  last_step: number | null;
  created_at: Date;
}

/**
 * One entry of the audit log (spec §8.4: kept 3 years): privacy actions, key changes, role changes and
 * deletions. `user_id` is the actor; when an account is deleted its entries stay, anonymised (actor and
 * personal details replaced).
 */
export interface AuditLogRecord extends Owned {
  id: string;
  /** e.g. api_key.created, organization.member.role_changed, gdpr.export.requested */
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
  created_at: Date;
}

/**
 * A saved generation template (spec §2.2 "Generation template"): a handlebars template or a plain
 * instruction (template_prompt) with its default output format and settings. Shared with the members of
 * its organization when is_shared; otherwise private to its creator.
 */
export interface GenerationTemplateRecord extends Owned {
  id: string;
  name: string;
  description: string | null;
  template_prompt: string;
  /** pdf, docx, markdown, html (or a format a generator plugin adds) */
  output_format: string;
  settings: Record<string, unknown>;
  is_shared: boolean;
  created_at: Date;
  updated_at: Date;
}

/**
 * One consent decision (spec §4.11): the table is the history, one row per grant or revocation; the current
 * state of a type is its latest row. `organization_id` is set for `data_processing` (organizations only).
 */
export interface ConsentRecord extends Owned {
  id: string;
  /** terms, privacy, marketing, analytics, data_processing */
  consent_type: string;
  granted: boolean;
  /** the policy version (QUIRE_POLICY_VERSION) the decision was made on */
  version: string;
  ip: string | null;
  created_at: Date;
}

/** A GDPR data export (spec §4.11): a zip made by the `gdpr-export` job, downloaded with a signed, expiring URL. */
export interface DataExportRequestRecord extends Owned {
  id: string;
  /** pending, processing, completed, failed, expired */
  status: string;
  job_id: string | null;
  /** blob key of the zip once completed */
  file_key: string | null;
  file_size: number | null;
  error: string | null;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** An account deletion request (spec §4.11): scheduled after the grace period, cancellable until it runs. */
export interface DeletionRequestRecord extends Owned {
  id: string;
  /** pending, scheduled, processing, completed, cancelled */
  status: string;
  reason: string | null;
  immediate: boolean;
  scheduled_at: Date;
  created_at: Date;
  updated_at: Date;
  cancelled_at: Date | null;
  completed_at: Date | null;
}

/** Every table the store knows, by name. Later features add entries here and a migration. */
/** Edit (spec §4.5): a detect/fill job with the spec's states; its runtime job row has the same id. */
export interface EditJobRecord extends Owned {
  id: string;
  document_id: string;
  project_id: string | null;
  batch_id: string | null;
  status: 'pending' | 'detecting' | 'filling' | 'rendering' | 'completed' | 'failed';
  progress: number;
  /** what the run asked for: mappings, instructions, corrections, config, verify */
  input: Record<string, unknown> | null;
  detected_elements: Record<string, unknown>[] | null;
  /** the element id → value mappings the fill used, with their sources */
  fill_mappings: Record<string, unknown>[] | null;
  edit_id: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}
/** One filled output of an edit job: a new stored file; the original is never changed. */
export interface EditRecord extends Owned {
  id: string;
  edit_job_id: string;
  document_id: string;
  parent_edit_id: string | null;
  filled_elements: Record<string, unknown>[];
  output_key: string;
  output_name: string;
  output_mime: string;
  output_size: number;
  warnings: string[];
  verification: Record<string, unknown> | null;
  pages_modified: number[];
  created_at: Date;
}
export interface EditProjectRecord extends Owned {
  id: string;
  name: string;
  document_id: string;
  edit_config_id: string | null;
  edit_job_id: string | null;
  created_at: Date;
  updated_at: Date;
}
export interface EditConfigRecord extends Owned {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  formatting_color: string | null;
  detection_settings: Record<string, unknown>;
  fill_settings: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}
export interface EditVocabularyRecord extends Owned {
  id: string;
  canonical_term: string;
  aliases: string[];
  created_at: Date;
  updated_at: Date;
}
/** One field set by one fill: who (user_id), when, the value and where it came from. */
export interface EditAuditRecord extends Owned {
  id: string;
  edit_id: string;
  edit_job_id: string;
  document_id: string;
  element_id: string;
  label: string;
  value: string | null;
  source: 'mapping' | 'instruction' | 'correction' | 'ai_suggestion';
  reasoning: string | null;
  created_at: Date;
}
export interface EditBatchRecord extends Owned {
  id: string;
  name: string | null;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  document_ids: string[];
  config: Record<string, unknown>;
  edit_config_id: string | null;
  /** document id → edit job id */
  jobs: Record<string, string>;
  progress: number;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/**
 * A saved split configuration (spec §4.7): how to split (method, instructions, manual sections, settings
 * such as min_section_pages and preserve_headers), reused by config_id in runs and batches.
 */
export interface SplitConfigRecord extends Owned {
  id: string;
  name: string;
  description: string | null;
  instructions: string | null;
  sections: Record<string, unknown>[] | null;
  settings: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** One section of a split (spec §2.2 "Split section"): a page range of the source and the child document made of it. */
export interface SplitSectionRecord extends Owned {
  id: string;
  /** the split job (a `jobs` row of type 'split') */
  job_id: string;
  /** the document split (null for a jobid:// source without a document) */
  parent_document_id: string | null;
  /** the child document made for the section */
  document_id: string | null;
  idx: number;
  section_name: string;
  /** detected, custom, page or document */
  section_type: string;
  page_start: number;
  page_end: number;
  confidence: number;
  label: string | null;
  /** reason, signals, detected document type, page range of the parsed content */
  metadata: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

/** A split batch (spec §4.7): up to 50 documents, one split job each. */
export interface SplitBatchRecord extends Owned {
  id: string;
  status: 'processing' | 'completed';
  config_id: string | null;
  webhook_url: string | null;
  /** the split jobs, in request order */
  job_ids: string[];
  total_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface Tables {
  users: UserRecord;
  api_keys: ApiKeyRecord;
  organizations: OrganizationRecord;
  memberships: MembershipRecord;
  invitations: InvitationRecord;
  documents: DocumentRecord;
  jobs: JobRecord;
  job_stages: JobStageRecord;
  chunks: ChunkRecord;
  usage: UsageRecord;
  credit_holds: CreditHoldRecord;
  webhook_deliveries: WebhookDeliveryRecord;
  rate_counters: RateCounterRecord;
  presets: PresetRecord;
  presigned_uploads: PresignedUploadRecord;
  collections: CollectionRecord;
  collection_documents: CollectionDocumentRecord;
  chat_sessions: ChatSessionRecord;
  chat_messages: ChatMessageRecord;
  schemas: SchemaRecord;
  extractions: ExtractionRecord;
  extract_batches: ExtractBatchRecord;
  ground_truth: GroundTruthRecord;
  stage_messages: StageMessageRecord;
  webhooks: WebhookRecord;
  workflows: WorkflowRecord;
  workflow_executions: WorkflowExecutionRecord;
  integrations: IntegrationRecord;
  workflow_ticks: WorkflowTickRecord;
  workflow_triggers: WorkflowTriggerRecord;
  workflow_inputs: WorkflowInputRecord;
  sessions: SessionRecord;
  user_totp: TotpRecord;
  audit_log: AuditLogRecord;
  generation_templates: GenerationTemplateRecord;
  edit_jobs: EditJobRecord;
  edits: EditRecord;
  edit_projects: EditProjectRecord;
  edit_configs: EditConfigRecord;
  edit_vocabulary: EditVocabularyRecord;
  edit_audit: EditAuditRecord;
  edit_batches: EditBatchRecord;
  split_configs: SplitConfigRecord;
  split_sections: SplitSectionRecord;
  split_batches: SplitBatchRecord;
  consents: ConsentRecord;
  data_export_requests: DataExportRequestRecord;
  deletion_requests: DeletionRequestRecord;
}
export type TableName = keyof Tables;
