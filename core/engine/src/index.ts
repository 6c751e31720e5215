/**
 * @quire/engine: the application every host runs. An Engine is built from the frozen config: it loads the
 * plugins, opens the store, blob storage and transport, defines every job kind as a pipeline of named
 * stages on the one runtime, and offers the services (documents, parse, extraction, collections, chat,
 * search, accounts, webhooks) that the HTTP host, `quire worker` and the runner call.
 */
export * from './clock.js';
export * from './engine.js';
export * from './metrics.js';
export * from './logger.js';
export * from './status.js';
export * from './readiness.js';
export * from './validation.js';
export * from './infra/access.js';
export * from './accounts/audit.js';
export * from './accounts/erase.js';
export * from './infra/credits.js';
export * from './accounts/gdpr.js';
export * from './analytics/index.js';
export * from './accounts/keys.js';
export * from './accounts/sessions.js';
export * from './accounts/totp.js';
export * from './accounts/organizations.js';
export * from './accounts/retention.js';
export * from './pipelines.js';
export * from './search/ingest.js';
export * from './parse/pipeline.js';
export * from './io/steps.js';
export * from './chat/service.js';
export * from './search/collections.js';
export * from './io/documents.js';
export * from './extraction/batch.js';
export * from './extraction/compare.js';
export * from './extraction/fields.js';
export * from './extraction/shapes.js';
export * from './extraction/suggest.js';
export * from './extraction/service.js';
export * from './infra/file-names.js';
export * from './io/inputs.js';
export * from './search/kb-insights.js';
export * from './infra/ledger.js';
export * from './infra/listing.js';
export * from './io/parse-config.js';
export * from './parse/sync.js';
export * from './io/presigned.js';
export * from './parse/presets.js';
export * from './extraction/ground-truth.js';
export * from './io/records.js';
export * from './infra/public-errors.js';
export * from './parse/render.js';
export * from './search/service.js';
export * from './infra/signing.js';
export * from './infra/url-fetch.js';
export * from './infra/webhooks.js';
export * from './workflows/index.js';
export * from './edit/index.js';
export * from './commands.js';
export * from './jobs.js';
export * from './context.js';
export * from './io/page-images.js';
export * from './generation/index.js';
export * from './split/index.js';
