/**
 * @quire/engine: the application every host runs. An Engine is built from the frozen config: it loads the
 * plugins, opens the store, blob storage and transport, defines every job kind as a pipeline of named
 * stages on the one runtime, and offers the operations of its feature modules (parse, extraction, search,
 * chat, generation, split, edit, workflows, accounts, analytics, above the shared io/ and infra/) that the
 * HTTP host, `quire worker` and the runner call.
 *
 * This facade names what the hosts, the benchmarks and the tests use, grouped by module; a module's other
 * exports are its own. `scripts/check-deps.mjs` refuses an `export *` here.
 */

// the engine: build, commands, readiness
export { KEYS_USAGE, keysCommand, runMain, stopOnSignal, USERS_USAGE, usersCommand, workerCommand } from './commands.js';
export { Engine } from './engine.js';
export { readiness } from './readiness.js';
export { describeDatabase, describeQueue, hidePassword, stagesOffHint, stagesStatus, startupSummary } from './status.js';

// infra: contracts, access, credits, signing, url-fetch, webhooks, ...
export type { Clock } from './clock.js';
export { submitJob } from './infra/submit.js';
export type { SubmitOptions, Submitted } from './infra/submit.js';
export { createLogger } from './logger.js';
export { metricsAccess } from './metrics.js';
export { parseWith, UUID } from './validation.js';
export { assertCanCreateIn, canRead, canWrite, loadOwned, membershipsOf, newOwned, roleIn } from './infra/access.js';
export type { AuthInfo } from './infra/access.js';
export { creditPeriod, creditsReport, estimatePages, holdCredits } from './infra/credits.js';
export { cleanFileName } from './infra/file-names.js';
export { listOwned } from './infra/listing.js';
export { looksInternal } from './infra/public-errors.js';
export { callbackSecret, verifyLink } from './infra/signing.js';
export { dispositionFileName, isPublicAddress, setHostResolver, vetUrl } from './infra/url-fetch.js';
export { attachWebhookFanout, createWebhook, deleteWebhook, deliveryLog, deliveryOf, fanOutEvent, redeliver, rotateWebhookSecret, testWebhook, updateWebhook, WEBHOOK_EVENTS } from './infra/webhook-subscriptions.js';
export { signatureHeader, verifyTimestampedSignature } from './infra/webhooks.js';

// io: documents, read and chunk steps, parse config, inputs, records
export { createDocument, deleteDocument, detectStored, documentFileUrl, epoch, jobStillServed, publicErrorText, v1Document } from './io/documents.js';
export { resolveInput } from './io/inputs.js';
export { pageImage, pageImageSupport, pageLayout } from './io/page-images.js';
export { parseConfig, parseConfigField, resolveParseRequest } from './io/parse-config.js';
export type { ParseConfig, ParseRequest } from './io/parse-config.js';
export { claimPresignedUpload, createPresignedUpload, openPresignedUpload, releasePresignedUpload } from './io/presigned.js';
export { documentJob, readableDocument, readableExtraction, readableJob, servedJob } from './io/records.js';
export { contentKey, jobInputKey, jobParsedKey, loadChunks, loadParsed, originalKey } from './io/steps.js';

// parse
export type { ParseSource } from './parse/pipeline.js';
export { createPreset, deletePreset, listPresets, updatePreset } from './parse/presets.js';
export { toJsonShape, toMarkdown } from './parse/render.js';
export { convertStored, parseStart, parseSync, readStored, studioLink, submitParse } from './parse/sync.js';

// search and knowledge bases
export { addDocument, apiKnowledgeBase, collectionDocumentIds, collectionDocuments, createCollection, deleteCollection, documentCount, KbSettingsSchema, loadCollection, removeDocument, updateCollection, v1Collection } from './search/collections.js';
export { checkDuplicates, kbAnalytics, suggestDocuments } from './search/kb-insights.js';
export { searchChunks } from './search/service.js';

// extraction
export { apiBatchSummary, batchJobId, createBatch, runPendingBatch, startBatch } from './extraction/batch.js';
export { batchComparison, comparisonCsv, comparisonXlsx, filterComparison } from './extraction/compare.js';
export { createSchema, deleteSchema, FieldDef, FieldList, fieldsForDescription, loadSchema, normaliseFields, prebuiltSchema, readableSchemas, resolveDefinition, saveSchema, schemaNameOf, schemaPatch, Settings } from './extraction/fields.js';
export type { NestedInput } from './extraction/fields.js';
export { groundTruthOf, recordGroundTruth, storeCorrections } from './extraction/ground-truth.js';
export { runExtraction } from './extraction/service.js';
export type { ExtractionRunResult, RunEvent, RunExtractionOptions } from './extraction/service.js';
export { apiExtractJob, apiStoredExtraction, fieldFor, v1Extraction } from './extraction/shapes.js';
export type { Correction } from './extraction/shapes.js';
export { mergeFields, parsedDocument, suggestFor, suggestSchema } from './extraction/suggest.js';

// chat
export { answer, apiAnswer, apiMessage, apiSession, CHAT_MODES, deleteSession, loadSession, messageCount, rateAnswer, readableSessions, sessionMessages } from './chat/service.js';
export type { ChatAnswer, ChatMode, ChatTurn } from './chat/service.js';

// generation
export { checkTemplateInput, GENERATED_FILE_PURPOSE, generatedFileUrl, generationState, resultOfGeneration, submitGeneration } from './generation/jobs.js';
export type { GenerationState } from './generation/jobs.js';
export { apiTemplate, createTemplate, deleteTemplate, loadTemplate, readableTemplates, TemplateBody, TemplatePatch, updateTemplate } from './generation/templates.js';

// split
export { SectionPatch, SplitAnalyzeBody, SplitBatchBody, SplitConfigBody, SplitConfigPatch, SplitRunBody } from './split/requests.js';
export { analyzeSplit, apiSplitConfig, createSplitConfig, deleteSplitConfig, documentSections, patchSection, runSplit, splitBatch, splitResults, startSplitBatch, updateSplitConfig } from './split/service.js';

// form editing
export { apiEditConfig, apiEditJob, apiEditProject, apiEditResult, apiVocabulary, elementsOf } from './edit/api.js';
export { documentFromUrl } from './edit/inputs.js';
export { submitEditJobAndWait } from './edit/jobs.js';
export type { EditRunInput } from './edit/jobs.js';
export { addEditVocabulary, apiAuditEntry, createEditBatch, createEditConfig, createEditProject, deleteEditVocabulary, editAuditReport, editBatchAudit, editBatchView, editJobError, editLinkedFile, editOf, editProjectDetails, editProjectRuns, getEditBatch, keepSuggestions, listEditConfigs, listEditVocabulary, mergeEditSettings, rerunEditProject, runEdit, startEditBatchJobs, updateEditVocabulary, verifyStoredEdit } from './edit/manage.js';
export { suggestValues } from './edit/suggest.js';

// accounts
export { ANONYMOUS_ACTOR, recordAudit } from './accounts/audit.js';
export { cancelDeletion, CONSENT_TYPES, consentState, deletionStatus, downloadableExport, EXPORT_LINK_PURPOSE, exportRequestOf, exportView, recordConsents, recordSignupConsents, renewalCheck, requestDeletion, requestExport, runDueDeletions } from './accounts/gdpr.js';
export { createKey, createKeyWithin, ensureBootstrapKey, findOrCreateUser, hashKey, KEY_PATTERN, newKey, revokeKey, verifyPassword } from './accounts/keys.js';
export { acceptInvitation, apiOrganization, changeRole, createOrganization, declineInvitation, deleteOrganization, inviteMember, knowledgeBaseFor, leaveOrganization, listInvitations, listMembers, listOrganizations, loadOrganization, myInvitations, organizationSettingsSchema, removeMember, revokeInvitation, settingsOf, transferOwnership, updateOrganization, updateSettings, writableDefaultKnowledgeBase } from './accounts/organizations.js';
export { runRetention } from './accounts/retention.js';
export { activeKeys, changePassword, checkLogin, createSession, csrfTokenFor, endSession, findSession, freshUser, keyScopes, keyStatus, LoginThrottle, normalizeEmail, ownKey, rotateKey, scopeAllows, signUpOrNotice, updateProfile } from './accounts/sessions.js';
export type { ThrottleLimit } from './accounts/sessions.js';
export { checkTotp, confirmTotp, disableTotp, enrolTotp, totpEnabled } from './accounts/totp.js';

// workflows
export { AUTO_TRIGGER_TYPES, checkCron, checkTriggers, checkWorkflow, IntegrationBody, IntegrationPatch, ScheduleInput, Trigger, TRIGGER_TYPES, TriggerConfig, WorkflowBody, WorkflowDefinition, WorkflowPatch } from './workflows/definition.js';
export { apiExecution, apiWorkflow, checkWebhookToken, startExecution } from './workflows/executions.js';
export { apiIntegration, createIntegration, emailConfigured, sendNotice, updateIntegration } from './workflows/integrations.js';
export { createWorkflow, deleteIntegration, deleteWorkflow, rotateTriggerSecret, saveWorkflow, scheduleWorkflow, unscheduleWorkflow, workflowById, workflowExecutions } from './workflows/manage.js';
export { checkPluginSteps } from './workflows/plugin-steps.js';
export { checkReferences, definitionReferences, namedIn, scopeOf, triggerReferences } from './workflows/scope.js';
export type { Scope } from './workflows/scope.js';
export { templateDefinition, WORKFLOW_TEMPLATES } from './workflows/templates.js';
export { listWorkflows, triggersOf, withTrigger, workflowTriggers } from './workflows/trigger-set.js';
export { onEvent, scheduleTick } from './workflows/triggers.js';

// analytics
export { analyticsExport, analyticsReports, REPORTS } from './analytics/export.js';
export { METRIC_NAMES, parseMetrics } from './analytics/metrics.js';
export { PERIODS } from './analytics/source.js';
export type { Period } from './analytics/source.js';
export { analyticsDrilldown, analyticsQuery, analyticsRealtime, analyticsSummary, DIMENSIONS } from './analytics/views.js';
