/**
 * @quire/sdk: what a plugin is written against. A third-party plugin declares it as a peer dependency
 * (`"peerDependencies": {"@quire/sdk": "^1"}`, the range the host's core version is checked against) and
 * exports `definePlugin({...})`, which is its whole manifest: kind, name, options schema, shared settings,
 * formats (readers) and `create`. The host loads it with QUIRE_PLUGINS.
 *
 * The values here are the host kernel's (@quire/core); errors made with this package's `errors` are the
 * host's errors (QuireError and NonRetryableError are recognised across copies), so a reader that throws
 * errors.unsupported(...) is answered 422 by the API.
 */
export type * from '@quire/core';
export {
  // defining a plugin
  definePlugin,
  z,
  PLUGIN_KINDS,
  SHARED_DEFAULTS,
  CORE_VERSION,
  PluginError,
  checkOptions,
  pluginContext,
  // readers
  DEFAULT_READ_LIMITS,
  readLimits,
  OCR_PENDING_KEY,
  ocrPendingOf,
  AGENTIC_KEY,
  mergeOcrPages,
  DocumentBuilder,
  unionBBox,
  packWords,
  unpackWords,
  SUPPORTED_FORMATS,
  builtinFormats,
  extensionOf,
  looksLikeText,
  textEncoding,
  tableToMarkdown,
  tableToHtml,
  tableToJson,
  renderTable,
  // generators
  GENERATED_LIMITS,
  renderGeneratedHtml,
  sourcesSection,
  citationLabel,
  citationMarkers,
  // answerers
  NOT_FOUND_ANSWER,
  // integrations
  sendFailed,
  signatureHeader,
  signatureHeaders,
  timestampedSignatureHeader,
  verifyTimestampedSignature,
  hmacHex,
  safeEqualHex,
  // errors, aborts, concurrency, logging
  ERROR_CATALOGUE,
  QuireError,
  errors,
  isQuireError,
  NonRetryableError,
  isRetryable,
  abortError,
  checkAbort,
  raceSignal,
  throwIfAborted,
  Limiter,
  silentLogger,
} from '@quire/core';
export * from './testing.js';
