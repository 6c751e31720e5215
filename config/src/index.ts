/**
 * Quire configuration: defaults here, overridden by QUIRE_* environment variables (and PORT/HOST),
 * validated once at start-up and deep-frozen. A bad value stops start-up with one clear message.
 * Variables that configure a plugin become that plugin's options (PLUGIN_ENV, `plugins.options`): the
 * plugin's own schema has their defaults and checks them when it is registered.
 * The README's configuration table is generated from ENV_VARS (configTable; a test checks they agree).
 */
import os from 'node:os';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';

export interface EnvVar {
  name: string;
  description: string;
  default: string;
}

/** Every environment variable Quire reads, with its default and meaning. */
export const ENV_VARS: EnvVar[] = [
  { name: 'PORT', default: '8080', description: 'HTTP port of the API.' },
  { name: 'HOST', default: '0.0.0.0', description: 'Interface the API listens on.' },
  { name: 'QUIRE_PUBLIC_URL', default: 'http://localhost:$PORT', description: 'Public address of the service, used in status_url, studio_link and signed upload/download URLs.' },
  { name: 'QUIRE_DATA_DIR', default: './data', description: 'Where the SQLite database, stored files, parsed content and the embedded vector index live. Private to the server: the folders it makes there are 0700 and the files 0600, whatever the umask.' },
  { name: 'QUIRE_DB_URL', default: 'sqlite (in the data dir)', description: 'mysql://user:pass@host:3306/db for MySQL/MariaDB, or sqlite:///path/to/file.db.' },
  { name: 'QUIRE_QUEUE_URL', default: '(in-process)', description: 'amqp://user:pass@host:5672 to run pipeline stages over RabbitMQ.' },
  { name: 'QUIRE_QUEUE_PREFIX', default: 'quire', description: 'Prefix of RabbitMQ queue and exchange names (separate installations sharing one broker use different prefixes).' },
  { name: 'QUIRE_RUN_STAGES', default: 'true', description: 'Which pipeline stages this process consumes: true (all), false (none: the API process when dedicated `quire worker` processes run them), or stage names joined with commas, each consumed in every pipeline that has it: fetch, read, ocr, chunk, index, load, extract, fanout, collect, source, plan, children, settle, generate, format, upload, build, run, deliver. `ocr` alone makes a dedicated OCR worker (scanned pages, on their own RabbitMQ queue); a worker without `ocr` in its list does not OCR the uploads and parses it reads (the ocr stage does).' },
  { name: 'QUIRE_STAGE_CONCURRENCY', default: '2', description: 'Stage messages a process handles at once (RabbitMQ prefetch).' },
  { name: 'QUIRE_MAX_ATTEMPTS', default: '3', description: 'Deliveries of a stage message before it is dead-lettered and its job fails. Only transient failures (I/O, broker, a dependency timing out) are retried; bad input fails at once.' },
  { name: 'QUIRE_WORKER_LEASE_S', default: '30', description: 'A stage held by a worker whose job shows no heartbeat for this long is taken over by another worker (the holder is taken for dead). Heartbeats are sent every third of it.' },
  { name: 'QUIRE_FAIR_SHARE', default: '(half the stage concurrency, at least 1)', description: 'Stages of one owner a process runs at once per stage queue; further messages of that owner wait while others run, so one user cannot hold every slot.' },
  { name: 'QUIRE_LOG_LEVEL', default: 'info', description: 'pino log level (fatal, error, warn, info, debug, trace, silent).' },
  { name: 'QUIRE_BOOTSTRAP_API_KEY', default: '(none)', description: 'Makes sure this exact API key (svc_ + 32+ hex) exists for the bootstrap admin user at start-up.' },
  { name: 'QUIRE_BOOTSTRAP_PLAN', default: 'premium', description: "Plan of the bootstrap user: free, standard or premium (sets its rate limits)." },
  { name: 'QUIRE_RATE_LIMIT_STORE', default: 'memory', description: 'memory (one process) or db (counters in the database, shared by several API processes).' },
  { name: 'QUIRE_SIGNING_SECRET', default: '(generated in the data dir)', description: 'Key for signed upload/download URLs and studio links. Set the same value on every API process.' },
  { name: 'QUIRE_MAX_UPLOAD_MB', default: '100', description: 'Upload and parse size limit, enforced while streaming.' },
  { name: 'QUIRE_MAX_PRESIGNED_MB', default: '5120', description: 'Size limit of a presigned upload.' },
  { name: 'QUIRE_ANONYMOUS_PAGES', default: '2', description: 'Pages the anonymous PDF conversion endpoints read.' },
  { name: 'QUIRE_PARSE_TIMEOUT_S', default: '600', description: 'Time limit of one document parse (per document, not multiplied by retries: a parse that runs out of time fails at once).' },
  { name: 'QUIRE_MAX_DECOMPRESSED_MB', default: '512', description: 'Inflated bytes a reader may take out of one zip-based file (docx, xlsx, pptx), counted while inflating; past it the file fails with UNPROCESSABLE. One part may use at most half of it.' },
  { name: 'QUIRE_MAX_PAGES', default: '5000', description: 'Pages (or slides, or sheets) a reader reads of one document; more fails with UNPROCESSABLE.' },
  { name: 'QUIRE_MAX_CELLS', default: '2000000', description: 'Spreadsheet cells read of one document; more fails with UNPROCESSABLE.' },
  { name: 'QUIRE_MAX_IMAGE_MEGAPIXELS', default: '100', description: 'Largest image (or rendered page) decoded, in megapixels; larger fails with UNPROCESSABLE.' },
  { name: 'QUIRE_READER_HEAP_MB', default: '768', description: 'Memory limit of each reader isolate and PDF parse worker (child processes): their V8 heap, and their whole resident memory at this plus 128 MB (buffers such as a decoded stream are watched too); the PDFium (WebAssembly) memory of a PDF worker is capped at this less 256 MB. A document that needs more fails with UNPROCESSABLE and only its isolate ends.' },
  { name: 'QUIRE_READER_THREADS', default: '(number of cores)', description: 'Reader isolates (child processes with the reader heap limit) for the office, sheet, slides and image readers: how many documents they read at once.' },
  { name: 'QUIRE_ALLOWED_HOSTS', default: '(none)', description: 'Comma-separated hosts (or host:port) that URL inputs and webhooks may reach even though they are loopback or private.' },
  { name: 'QUIRE_URL_TIMEOUT_S', default: '30', description: 'Time limit for fetching a URL input.' },
  { name: 'QUIRE_WEBHOOK_RETRY_DELAYS_S', default: '60,300,1800,7200', description: 'Delays before webhook attempts 2 to 5 (spec §6.3); after the last failed attempt a delivery is marked failed.' },
  { name: 'QUIRE_PDF_WORKERS', default: '(number of cores)', description: 'Parse worker processes (each with the reader heap limit) that read PDF pages in parallel.' },
  { name: 'QUIRE_PDF_DEBUG', default: '(off)', description: 'Set to 1 to print per-phase timings of the PDF reader workers to stderr.' },
  { name: 'QUIRE_PDF_PROFILE_DIR', default: '(off)', description: 'A directory where each PDF reader worker writes a V8 CPU profile per document it parsed (for benchmarks: bench/README.md, stages.ts).' },
  { name: 'QUIRE_VECTOR_LAYOUT', default: 'columns (rows when QUIRE_EMBEDDER is not local)', description: 'How the embedded vector store lays out its in-memory int8 rows. columns: dimension-major blocks that a search reads only in its query vector\'s nonzero dimensions (the local embedder\'s queries use about 50 of 384: 2-2.5x faster); rows: row-major, every dimension read, three times faster per dimension (a neural embedder\'s dense query vectors). Same results either way but for the columns layout\'s pruned scan (the vector-store:embedded option pruneMass, default 0.85, on searches over 100,000 rows or more (pruneMinRows): only the heaviest query dimensions read first, recall@10 0.985-1.000 against the exact scan; 1 reads them all, exact) (docs/search-scale.md).' },
  { name: 'QUIRE_VECTOR_NO_SIMD', default: '(off)', description: 'Set to 1 to make the embedded vector store scan without its WebAssembly SIMD kernel (plain JavaScript), e.g. to compare the two.' },
  { name: 'QUIRE_OCR_ENGINE', default: 'auto', description: 'OCR plugin. auto: each scan goes by its OCR language (QUIRE_OCR_LANGUAGE or the request\'s ocr.language) to ppocr when every language asked for is English or Chinese (eng, chi_sim, chi_tra, joined with +), to tesseract for any other language and for auto; when ppocr cannot run (models or onnxruntime missing) everything goes to tesseract and the reason is logged. tesseract (the system binary, one process per page) or ppocr (PP-OCRv4 models run in-process by onnxruntime, English and Chinese only) forces one engine (plugins/ocr-ppocr/README.md compares the two); or the name of an OCR plugin loaded with QUIRE_PLUGINS.' },
  { name: 'QUIRE_OCR_CONCURRENCY', default: '(number of cores)', description: 'Tesseract processes run at once.' },
  { name: 'QUIRE_OCR_LANGUAGE', default: 'eng', description: 'Default OCR language(s), tesseract codes joined with +, or auto.' },
  { name: 'QUIRE_TESSERACT_PATH', default: 'tesseract', description: 'The tesseract binary.' },
  { name: 'QUIRE_TESSERACT_PSM', default: 'auto', description: 'Tesseract page segmentation mode: auto (6, one block, on narrow images such as till receipts; 3, automatic layout, on others), or 3, 4, 6, 11, 12, 1.' },
  { name: 'QUIRE_SOFFICE_PATH', default: 'soffice', description: 'LibreOffice binary used to convert rtf documents and render legacy .ppt slides.' },
  { name: 'QUIRE_CHROMIUM_PATH', default: '/usr/bin/chromium', description: 'Chromium that prints generated documents as pdf (puppeteer-core; one browser per process, started at the first pdf). Without it pdf generation fails with SERVICE_UNAVAILABLE naming the path and /readyz shows generator:pdf not ok; the other formats still work.' },
  { name: 'QUIRE_METRICS', default: 'off', description: 'on serves Prometheus metrics at /metrics to anyone (for a private network); off: 404 unless QUIRE_METRICS_TOKEN is set.' },
  { name: 'QUIRE_METRICS_TOKEN', default: '(none)', description: '/metrics answers only requests that send this token as "Authorization: Bearer" (401 otherwise; compared in constant time). Takes precedence over QUIRE_METRICS.' },
  { name: 'QUIRE_WORKER_HEALTH_PORT', default: '(none)', description: 'A worker (quire worker) answers /healthz, /readyz and /metrics (as set by QUIRE_METRICS*) on this port.' },
  { name: 'QUIRE_TRUST_PROXY', default: 'false', description: 'true behind a reverse proxy: client addresses (anonymous rate limits) come from X-Forwarded-For.' },
  { name: 'QUIRE_KEEPALIVE_S', default: '65', description: 'How long an idle keep-alive connection stays open. Above the idle time of common client pools and load balancers (60 s), so that they close it first and never write into a socket the server is closing.' },
  { name: 'QUIRE_PLUGINS', default: '(none)', description: 'Extra plugins to load: comma-separated npm package names or paths. They may override built-ins of the same kind and name, and readers may add formats or take over the reader of one.' },
  { name: 'QUIRE_SECRETS_KEY', default: '(generated in the data dir)', description: 'Key (64 hex characters, or any passphrase of 16+ characters) that encrypts secrets at rest (integration URLs and headers, webhook signing secrets) with AES-256-GCM. Set the same value on every process; changing it makes stored secrets unreadable.' },
  { name: 'QUIRE_SMTP_HOST', default: '(none)', description: 'SMTP server of workflow email integrations; without it an email step fails with a clear error.' },
  { name: 'QUIRE_SMTP_PORT', default: '587', description: 'SMTP port (465 uses TLS from the start, others STARTTLS when offered).' },
  { name: 'QUIRE_SMTP_USER', default: '(none)', description: 'SMTP user name (no authentication when unset).' },
  { name: 'QUIRE_SMTP_PASSWORD', default: '(none)', description: 'SMTP password.' },
  { name: 'QUIRE_SMTP_FROM', default: 'quire@localhost', description: 'Sender address of workflow emails.' },
  { name: 'QUIRE_SCHEDULER_INTERVAL_S', default: '5', description: 'How often an API process looks for due ticks of scheduled workflows (each tick runs once, whichever process claims it).' },
  { name: 'QUIRE_WORKFLOW_EXPRESSION_TIMEOUT_S', default: '2', description: 'Time limit of one workflow step\'s expressions or templates (JSONata of transform and condition steps, handlebars of integration steps and `{{…}}` in a step\'s config), evaluated in an isolated process that is killed past it; the step then fails.' },
  { name: 'QUIRE_WORKFLOW_MAX_EXECUTIONS', default: '25', description: 'Most workflow executions one originating event or run may start, counting every workflow it triggers through workflow.* events and theirs; those past it are not started (logged). Stops workflows that trigger each other from fanning out.' },
  { name: 'QUIRE_WORKFLOW_MAX_RUNNING', default: '10', description: 'Most running workflow executions of one owner (a user\'s personal workflows, or an organization\'s): a manual execute or webhook call past it is refused with 429 WORKFLOW_LIMIT, an event or scheduled execution past it is not started (logged).' },
  { name: 'QUIRE_CRON_SECONDS', default: 'false', description: 'Also accept six-field cron expressions (a leading seconds field) in workflow schedules; meant for tests. The API otherwise takes five-field expressions.' },
  { name: 'QUIRE_PLUGIN_OPTIONS', default: '(none)', description: 'Options of any plugin as JSON keyed by `<kind>:<name>`, e.g. `{"reader:pdf": {"workers": 2}}`. Each plugin checks its own at start-up (a bad or unknown option stops it, naming the plugin and the option); a dedicated variable in this table wins over the same option here.' },
  { name: 'QUIRE_EMBEDDER', default: 'local', description: 'Embedder plugin: local (offline) or openai (OpenAI-compatible /embeddings).' },
  { name: 'QUIRE_VECTOR_STORE', default: 'embedded', description: 'Vector store plugin: embedded or weaviate.' },
  { name: 'QUIRE_WEAVIATE_URL', default: '(none)', description: 'Weaviate address, e.g. http://weaviate:8080 (gRPC on 50051 of the same host).' },
  { name: 'QUIRE_WEAVIATE_API_KEY', default: '(none)', description: 'Weaviate API key.' },
  { name: 'QUIRE_EMBEDDINGS_BASE_URL', default: '(none)', description: 'OpenAI-compatible embeddings endpoint base, e.g. http://localhost:11434/v1.' },
  { name: 'QUIRE_EMBEDDINGS_MODEL', default: '(none)', description: 'Embedding model name.' },
  { name: 'QUIRE_EMBEDDINGS_API_KEY', default: '(none)', description: 'Embeddings API key.' },
  { name: 'QUIRE_LLM_BASE_URL', default: '(none)', description: 'OpenAI-compatible chat-completions base URL; when set, the LLM writes extractions, chat answers and generated text, names split sections and maps form-fill instructions. Chat answers and extracted values are checked against their sources and replaced by the offline ones when not borne out (docs/api/llm-grounding.md).' },
  { name: 'QUIRE_LLM_MODEL', default: '(none)', description: 'LLM model name.' },
  { name: 'QUIRE_LLM_API_KEY', default: '(none)', description: 'LLM API key.' },
  { name: 'QUIRE_LLM_TIMEOUT_MS', default: '120000', description: 'Time limit of one LLM request attempt, in milliseconds; a request that outlasts it is retried like a 429 or 5xx answer.' },
  { name: 'QUIRE_LLM_MAX_ATTEMPTS', default: '3', description: 'Attempts in all (the first included) of one LLM request on timeouts, 429 (honouring `Retry-After`, capped at 30 s), 5xx, network errors and answers that are not the JSON asked for; then chat and extraction answer offline. 400, 401 and 403 are not retried.' },
  { name: 'QUIRE_ANSWERER', default: 'offline', description: 'Chat answerer plugin: offline (quotes the retrieved sources as a typed value, a cited passage or the refusal; no LLM), or the name of an answerer plugin loaded with QUIRE_PLUGINS. With QUIRE_LLM_* set, chat asks the LLM first and the answerer answers when the LLM fails or is not borne out by the sources.' },
  { name: 'QUIRE_CHAT_MIN_CONFIDENCE', default: '0.6', description: 'Without an LLM, chat gives a typed value (`answer_type: value`) only when its confidence reaches this (0 to 1); otherwise it quotes the whole sentences that say most of the question (`passage`, "The documents say: …") when the search found them, and else says it could not find the answer (`none`). Lower gives more values and gets more of them wrong (bench/README has the measured trade-off).' },
  { name: 'QUIRE_SIGNUP', default: 'true', description: 'Whether anyone may sign up with email and password (POST /api/auth/signup); false: accounts come from the command line only.' },
  { name: 'QUIRE_SESSION_TTL_S', default: '604800', description: 'Lifetime of a browser session (login cookie), in seconds, from login.' },
  { name: 'QUIRE_LOGIN_MAX_FAILURES', default: '10', description: 'Failed logins allowed per email from one client address in 15 minutes, 5x that per email from all addresses and 20x per client address (counted before the password is checked); then 429 until the window ends.' },
  { name: 'QUIRE_RETENTION_INTERVAL_S', default: '3600', description: 'How often an API process runs the retention job: resources of organizations older than their data_retention_days, chat history and analytics older than 1 year, audit entries older than 3 years.' },
  { name: 'QUIRE_CREDITS_FREE', default: '500', description: 'Monthly credit allocation of the free plan (spec §8.3 costs: 1.5 a parsed page, 2 an extraction, 0.1 a chat query, 1 a generated document). An operation the balance cannot cover is refused up front with 402 INSUFFICIENT_CREDITS; the balance restarts on the 1st of each month (UTC).' },
  { name: 'QUIRE_CREDITS_STANDARD', default: '10000', description: 'Monthly credit allocation of the standard plan.' },
  { name: 'QUIRE_CREDITS_PREMIUM', default: '100000', description: "Monthly credit allocation of the premium plan (the bootstrap user's default plan). An organization's resources are billed to the organization, whose allocation is that of its owner's plan." },
  { name: 'QUIRE_API_KEYS_FREE', default: '5', description: 'Active API keys (neither revoked nor expired) a user of the free plan may hold; POST /api/keys answers 409 past it. The plan\'s rate limit (spec §8.1) bounds each key and the user over all their keys and sessions.' },
  { name: 'QUIRE_API_KEYS_STANDARD', default: '25', description: 'Active API keys a user of the standard plan may hold.' },
  { name: 'QUIRE_API_KEYS_PREMIUM', default: '100', description: 'Active API keys a user of the premium plan may hold.' },
  { name: 'QUIRE_POLICY_VERSION', default: '1', description: 'Current version of the terms and privacy policy: a user whose terms or privacy consent was given for another version is asked to renew (GET /api/gdpr/consent/renewal-check).' },
  { name: 'QUIRE_EXPORT_TTL_H', default: '24', description: 'How long a GDPR data export (its signed download URL and its zip) stays available, in hours; then it is expired and removed.' },
  { name: 'QUIRE_ERASE_WAIT_S', default: '60', description: 'How long an account or organization erasure waits for each kind of work under way on what it erases (stage runs here and in workers, their completion hooks, event handlers) before it erases anyway; a run still under way then removes what it writes itself when it ends.' },
  { name: 'QUIRE_DELETION_GRACE_DAYS', default: '7', description: 'Grace period of an account deletion request (cancellable until then; `immediate` skips it).' },
];

/** How a variable that sets a plugin option is read: as given, as an integer, as a boolean, or as a boolean that turns the option off. */
type EnvType = 'string' | 'int' | 'bool' | 'off';

/**
 * Environment variables that set a plugin option, keyed `<kind>:<name>`. Only a variable that is set gives
 * the option; otherwise the plugin's schema has the default. (Those the application itself also uses,
 * such as QUIRE_DB_URL, stay in the configuration as well.)
 */
export const PLUGIN_ENV: readonly { env: string; plugin: string; option: string; type?: EnvType }[] = [
  { env: 'QUIRE_DB_URL', plugin: 'store:typeorm', option: 'url' },
  { env: 'QUIRE_QUEUE_URL', plugin: 'transport:rabbitmq', option: 'url' },
  { env: 'QUIRE_QUEUE_PREFIX', plugin: 'transport:rabbitmq', option: 'prefix' },
  { env: 'QUIRE_PDF_WORKERS', plugin: 'reader:pdf', option: 'workers', type: 'int' },
  { env: 'QUIRE_PDF_WORKERS', plugin: 'reader:pdf-poppler', option: 'processes', type: 'int' },
  { env: 'QUIRE_PDF_DEBUG', plugin: 'reader:pdf', option: 'debug', type: 'bool' },
  { env: 'QUIRE_TESSERACT_PATH', plugin: 'ocr:tesseract', option: 'binary' },
  { env: 'QUIRE_TESSERACT_PSM', plugin: 'ocr:tesseract', option: 'psm' },
  { env: 'QUIRE_SOFFICE_PATH', plugin: 'reader:office', option: 'soffice' },
  { env: 'QUIRE_SOFFICE_PATH', plugin: 'reader:slides', option: 'soffice' },
  { env: 'QUIRE_CHROMIUM_PATH', plugin: 'generator:pdf', option: 'chromium' },
  { env: 'QUIRE_VECTOR_NO_SIMD', plugin: 'vector-store:embedded', option: 'simd', type: 'off' },
  { env: 'QUIRE_VECTOR_LAYOUT', plugin: 'vector-store:embedded', option: 'layout' },
  { env: 'QUIRE_WEAVIATE_URL', plugin: 'vector-store:weaviate', option: 'url' },
  { env: 'QUIRE_WEAVIATE_API_KEY', plugin: 'vector-store:weaviate', option: 'apiKey' },
  { env: 'QUIRE_EMBEDDINGS_BASE_URL', plugin: 'embedder:openai', option: 'baseUrl' },
  { env: 'QUIRE_EMBEDDINGS_MODEL', plugin: 'embedder:openai', option: 'model' },
  { env: 'QUIRE_EMBEDDINGS_API_KEY', plugin: 'embedder:openai', option: 'apiKey' },
  { env: 'QUIRE_LLM_BASE_URL', plugin: 'llm:openai', option: 'baseUrl' },
  { env: 'QUIRE_LLM_MODEL', plugin: 'llm:openai', option: 'model' },
  { env: 'QUIRE_LLM_API_KEY', plugin: 'llm:openai', option: 'apiKey' },
  { env: 'QUIRE_LLM_TIMEOUT_MS', plugin: 'llm:openai', option: 'timeoutMs', type: 'int' },
  { env: 'QUIRE_LLM_MAX_ATTEMPTS', plugin: 'llm:openai', option: 'maxAttempts', type: 'int' },
  { env: 'QUIRE_SMTP_HOST', plugin: 'integration:email', option: 'host' },
  { env: 'QUIRE_SMTP_PORT', plugin: 'integration:email', option: 'port', type: 'int' },
  { env: 'QUIRE_SMTP_USER', plugin: 'integration:email', option: 'user' },
  { env: 'QUIRE_SMTP_PASSWORD', plugin: 'integration:email', option: 'password' },
  { env: 'QUIRE_SMTP_FROM', plugin: 'integration:email', option: 'from' },
];

/** The README's configuration table: every variable, its default and meaning, and the plugin options it sets. */
/** The default ENV_VARS declares for a variable. */
function declaredDefault(name: string): string {
  const v = ENV_VARS.find((e) => e.name === name);
  if (!v) throw new Error(`${name} is not declared in ENV_VARS`);
  return v.default;
}

export function configTable(): string {
  const sets = (name: string) => {
    const to = PLUGIN_ENV.filter((p) => p.env === name).map((p) => `\`${p.option}\` of \`${p.plugin}\``);
    return to.length ? ` Plugin option ${to.join(', ')}.` : '';
  };
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...ENV_VARS.map((v) => `| \`${v.name}\` | ${v.default} | ${v.description}${sets(v.name)} |`)].join('\n');
}

const PLUGIN_KEY = /^[a-z-]+:[A-Za-z0-9._@/-]+$/;
const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])], { error: (i) => `expected true, false, 1, 0, yes or no, got ${JSON.stringify(i.input)}` })
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');
/**
 * The stage names of Quire's pipelines (each pipeline's stage queue is `<pipeline>.<stage>`), which
 * QUIRE_RUN_STAGES may list: `ocr` alone makes a dedicated OCR worker, `fetch,read,chunk,index` a reader that
 * does not OCR. The engine checks at start that each names a stage of its pipelines.
 */
export const STAGE_NAMES = ['fetch', 'read', 'ocr', 'chunk', 'index', 'load', 'extract', 'fanout', 'collect', 'source', 'plan', 'children', 'settle', 'generate', 'format', 'upload', 'build', 'run', 'deliver'] as const;
const BOOL_WORDS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false, yes: true, no: false };
/** true (every stage), false (none), or the stage names this process consumes */
const runStages = z.union([z.boolean(), z.string()]).transform((v, ctx): boolean | string[] => {
  if (typeof v === 'boolean') return v;
  if (v in BOOL_WORDS) return BOOL_WORDS[v]!;
  const names = v.split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(STAGE_NAMES as readonly string[]).includes(n));
  if (names.length && !unknown.length) return [...new Set(names)];
  ctx.addIssue({
    code: 'custom',
    message: `expected true, false, 1, 0, yes or no, got ${JSON.stringify(v)}; or stage names joined with commas, from: ${STAGE_NAMES.join(', ')}${unknown.length && names.length > unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
  });
  return z.NEVER;
});
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalString = z.string().trim().min(1).optional();

const schema = z.object({
  port: int(0, 65535),
  host: z.string().min(1),
  publicUrl: z.string().url().optional(),
  dataDir: z.string().min(1),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  db: z.object({ url: z.string().regex(/^(sqlite|mysql|mariadb):/, 'must start with sqlite:, mysql: or mariadb:').optional() }),
  queue: z.object({
    url: z.string().regex(/^amqps?:\/\//, 'must be an amqp:// or amqps:// URL').optional(),
    prefix: z.string().regex(/^[a-z0-9_.-]{1,40}$/i, 'letters, digits, _ . - only'),
    runStages,
    concurrency: int(1, 256),
    maxAttempts: int(1, 50),
    leaseMs: z.number().int().min(1000),
    fairShare: int(1, 256),
  }),
  auth: z.object({ bootstrapKey: z.string().regex(/^svc_[0-9a-f]{32,}$/, 'must be svc_ followed by at least 32 lowercase hex characters').optional(), bootstrapPlan: z.enum(['free', 'standard', 'premium']) }),
  accounts: z.object({ signup: bool, sessionTtlMs: z.number().positive().max(366 * 86_400_000), loginMaxFailures: int(1, 10_000) }),
  retention: z.object({ intervalMs: z.number().int().min(1000).max(7 * 86_400_000) }),
  credits: z.object({ free: z.coerce.number().min(0), standard: z.coerce.number().min(0), premium: z.coerce.number().min(0) }),
  apiKeys: z.object({ free: int(1, 100_000), standard: int(1, 100_000), premium: int(1, 100_000) }),
  privacy: z.object({ policyVersion: z.string().trim().min(1).max(32), exportTtlMs: z.number().int().min(60_000), eraseWaitMs: z.number().int().min(1000).max(3_600_000), deletionGraceDays: z.coerce.number().min(0).max(365) }),
  rateLimit: z.object({ store: z.enum(['memory', 'db']) }),
  secrets: z.object({ signing: z.string().min(16, 'must be at least 16 characters').optional() }),
  limits: z.object({
    uploadBytes: z.number().int().positive(),
    presignedBytes: z.number().int().positive(),
    anonymousPages: int(1, 1000),
    parseTimeoutMs: z.number().int().positive(),
    urlTimeoutMs: z.number().int().positive(),
    decompressedBytes: z.number().int().positive(),
    maxPages: int(1, 1_000_000),
    maxCells: int(1, 1_000_000_000),
    maxImagePixels: z.number().int().positive(),
    readerHeapMb: int(64, 65536),
    readerThreads: int(1, 64),
  }),
  network: z.object({ allowedHosts: z.array(z.string().min(1)) }),
  webhooks: z.object({ retryDelaysMs: z.array(z.number().int().min(0)).min(1).max(10), timeoutMs: z.number().int().positive() }),
  ocr: z.object({ concurrency: int(1, 64), language: z.string().regex(/^(auto|[a-z_]{3,}(\+[a-z_]{3,})*)$/i, 'tesseract codes joined with + or auto') }),
  tools: z.object({ chromium: z.string().min(1) }),
  http: z.object({ trustProxy: bool, keepAliveMs: z.number().int().min(1000).max(3_600_000) }),
  metrics: z.object({ enabled: z.enum(['on', 'off'], { error: (i) => `expected on or off, got ${JSON.stringify(i.input)}` }).transform((v) => v === 'on'), token: z.string().min(16, 'must be at least 16 characters').optional(), workerHealthPort: int(0, 65535).optional() }),
  plugins: z.object({
    extra: z.array(z.string().min(1)),
    /** the active plugin name for single-choice kinds */
    selected: z.record(z.string(), z.string()),
    /** per-plugin options, keyed by `<kind>:<name>` (checked by each plugin's schema when it is registered) */
    options: z.record(z.string().regex(PLUGIN_KEY, 'keys are <kind>:<name>'), z.record(z.string(), z.unknown())),
    /** the variable each option came from, keyed `<kind>:<name>.<option>`, for the plugins' error messages */
    sources: z.record(z.string(), z.string()),
  }),
  llm: z.object({ baseUrl: z.string().url().optional(), model: optionalString, apiKey: optionalString }),
  chat: z.object({ minConfidence: z.coerce.number().min(0).max(1) }),
  embeddings: z.object({ baseUrl: z.string().url().optional(), model: optionalString, apiKey: optionalString }),
  weaviate: z.object({ url: z.string().url().optional(), apiKey: optionalString }),
  workflows: z.object({
    secretsKey: z.string().min(16, 'must be at least 16 characters').optional(),
    schedulerIntervalMs: z.number().int().min(10).max(3_600_000),
    expressionTimeoutMs: z.number().int().min(100).max(600_000),
    cronSeconds: bool,
    maxExecutionsPerOrigin: int(1, 100_000),
    maxRunning: int(1, 100_000),
  }),
});

export type QuireConfig = z.infer<typeof schema>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const list = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []);
const mb = (v: string | undefined, d: number) => (v === undefined || v === '' ? d : Number(v)) * 1024 * 1024;
const secs = (v: string | undefined, d: number) => (v === undefined || v === '' ? d : Number(v)) * 1000;
const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);

/** Which environment variable each config path comes from, to name it in errors. */
const SOURCE: Record<string, string> = {
  port: 'PORT', host: 'HOST', publicUrl: 'QUIRE_PUBLIC_URL', dataDir: 'QUIRE_DATA_DIR', logLevel: 'QUIRE_LOG_LEVEL',
  'db.url': 'QUIRE_DB_URL', 'queue.url': 'QUIRE_QUEUE_URL', 'queue.prefix': 'QUIRE_QUEUE_PREFIX', 'queue.runStages': 'QUIRE_RUN_STAGES', 'queue.concurrency': 'QUIRE_STAGE_CONCURRENCY',
  'queue.maxAttempts': 'QUIRE_MAX_ATTEMPTS', 'auth.bootstrapKey': 'QUIRE_BOOTSTRAP_API_KEY', 'auth.bootstrapPlan': 'QUIRE_BOOTSTRAP_PLAN',
  'rateLimit.store': 'QUIRE_RATE_LIMIT_STORE', 'secrets.signing': 'QUIRE_SIGNING_SECRET', 'limits.uploadBytes': 'QUIRE_MAX_UPLOAD_MB',
  'limits.presignedBytes': 'QUIRE_MAX_PRESIGNED_MB', 'limits.anonymousPages': 'QUIRE_ANONYMOUS_PAGES', 'limits.parseTimeoutMs': 'QUIRE_PARSE_TIMEOUT_S',
  'limits.urlTimeoutMs': 'QUIRE_URL_TIMEOUT_S', 'limits.decompressedBytes': 'QUIRE_MAX_DECOMPRESSED_MB', 'limits.maxPages': 'QUIRE_MAX_PAGES', 'limits.maxCells': 'QUIRE_MAX_CELLS',
  'limits.maxImagePixels': 'QUIRE_MAX_IMAGE_MEGAPIXELS', 'limits.readerHeapMb': 'QUIRE_READER_HEAP_MB', 'limits.readerThreads': 'QUIRE_READER_THREADS', 'queue.leaseMs': 'QUIRE_WORKER_LEASE_S', 'queue.fairShare': 'QUIRE_FAIR_SHARE', 'ocr.concurrency': 'QUIRE_OCR_CONCURRENCY', 'plugins.selected.ocr': 'QUIRE_OCR_ENGINE',
  'ocr.language': 'QUIRE_OCR_LANGUAGE', 'http.trustProxy': 'QUIRE_TRUST_PROXY', 'http.keepAliveMs': 'QUIRE_KEEPALIVE_S', 'metrics.enabled': 'QUIRE_METRICS', 'metrics.token': 'QUIRE_METRICS_TOKEN', 'metrics.workerHealthPort': 'QUIRE_WORKER_HEALTH_PORT', 'plugins.options': 'QUIRE_PLUGIN_OPTIONS', 'webhooks.retryDelaysMs': 'QUIRE_WEBHOOK_RETRY_DELAYS_S', 'llm.baseUrl': 'QUIRE_LLM_BASE_URL', 'chat.minConfidence': 'QUIRE_CHAT_MIN_CONFIDENCE', 'plugins.selected.answerer': 'QUIRE_ANSWERER', 'embeddings.baseUrl': 'QUIRE_EMBEDDINGS_BASE_URL', 'weaviate.url': 'QUIRE_WEAVIATE_URL',
  'accounts.signup': 'QUIRE_SIGNUP', 'accounts.sessionTtlMs': 'QUIRE_SESSION_TTL_S', 'accounts.loginMaxFailures': 'QUIRE_LOGIN_MAX_FAILURES', 'retention.intervalMs': 'QUIRE_RETENTION_INTERVAL_S',
  'apiKeys.free': 'QUIRE_API_KEYS_FREE', 'apiKeys.standard': 'QUIRE_API_KEYS_STANDARD', 'apiKeys.premium': 'QUIRE_API_KEYS_PREMIUM',
  'credits.free': 'QUIRE_CREDITS_FREE', 'credits.standard': 'QUIRE_CREDITS_STANDARD', 'credits.premium': 'QUIRE_CREDITS_PREMIUM',
  'privacy.policyVersion': 'QUIRE_POLICY_VERSION', 'privacy.exportTtlMs': 'QUIRE_EXPORT_TTL_H', 'privacy.eraseWaitMs': 'QUIRE_ERASE_WAIT_S', 'privacy.deletionGraceDays': 'QUIRE_DELETION_GRACE_DAYS',
  'workflows.secretsKey': 'QUIRE_SECRETS_KEY', 'workflows.schedulerIntervalMs': 'QUIRE_SCHEDULER_INTERVAL_S', 'workflows.expressionTimeoutMs': 'QUIRE_WORKFLOW_EXPRESSION_TIMEOUT_S', 'workflows.cronSeconds': 'QUIRE_CRON_SECONDS', 'workflows.maxExecutionsPerOrigin': 'QUIRE_WORKFLOW_MAX_EXECUTIONS', 'workflows.maxRunning': 'QUIRE_WORKFLOW_MAX_RUNNING',
};

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}

/**
 * Builds the config from the environment plus optional overrides (tests and the runner pass overrides).
 * Throws ConfigError naming the variable and the problem.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<string, unknown>> = {}): Readonly<QuireConfig> {
  const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  const raw = {
    port: env.PORT ?? 8080,
    host: env.HOST ?? '0.0.0.0',
    publicUrl: nonEmpty(env.QUIRE_PUBLIC_URL),
    dataDir: path.resolve(env.QUIRE_DATA_DIR ?? './data'),
    logLevel: env.QUIRE_LOG_LEVEL ?? 'info',
    db: { url: nonEmpty(env.QUIRE_DB_URL) },
    queue: {
      url: nonEmpty(env.QUIRE_QUEUE_URL),
      prefix: env.QUIRE_QUEUE_PREFIX ?? 'quire',
      runStages: env.QUIRE_RUN_STAGES ?? 'true',
      concurrency: env.QUIRE_STAGE_CONCURRENCY ?? 2,
      maxAttempts: env.QUIRE_MAX_ATTEMPTS ?? 3,
      leaseMs: secs(env.QUIRE_WORKER_LEASE_S, 30),
      fairShare: env.QUIRE_FAIR_SHARE ?? Math.max(1, Math.floor(Number(env.QUIRE_STAGE_CONCURRENCY ?? 2) / 2) || 1),
    },
    auth: { bootstrapKey: nonEmpty(env.QUIRE_BOOTSTRAP_API_KEY), bootstrapPlan: env.QUIRE_BOOTSTRAP_PLAN ?? 'premium' },
    accounts: { signup: env.QUIRE_SIGNUP ?? 'true', sessionTtlMs: secs(env.QUIRE_SESSION_TTL_S, 604_800), loginMaxFailures: env.QUIRE_LOGIN_MAX_FAILURES ?? 10 },
    retention: { intervalMs: Math.round(secs(env.QUIRE_RETENTION_INTERVAL_S, 3600)) },
    apiKeys: { free: env.QUIRE_API_KEYS_FREE ?? 5, standard: env.QUIRE_API_KEYS_STANDARD ?? 25, premium: env.QUIRE_API_KEYS_PREMIUM ?? 100 },
    credits: { free: env.QUIRE_CREDITS_FREE ?? 500, standard: env.QUIRE_CREDITS_STANDARD ?? 10_000, premium: env.QUIRE_CREDITS_PREMIUM ?? 100_000 },
    privacy: { policyVersion: env.QUIRE_POLICY_VERSION ?? '1', exportTtlMs: Math.round(secs(env.QUIRE_EXPORT_TTL_H, 24) * 3600), eraseWaitMs: Math.round(secs(env.QUIRE_ERASE_WAIT_S, 60)), deletionGraceDays: env.QUIRE_DELETION_GRACE_DAYS ?? 7 },
    rateLimit: { store: env.QUIRE_RATE_LIMIT_STORE ?? 'memory' },
    secrets: { signing: nonEmpty(env.QUIRE_SIGNING_SECRET) },
    limits: {
      uploadBytes: mb(env.QUIRE_MAX_UPLOAD_MB, 100),
      presignedBytes: mb(env.QUIRE_MAX_PRESIGNED_MB, 5120),
      anonymousPages: env.QUIRE_ANONYMOUS_PAGES ?? 2,
      parseTimeoutMs: secs(env.QUIRE_PARSE_TIMEOUT_S, 600),
      urlTimeoutMs: secs(env.QUIRE_URL_TIMEOUT_S, 30),
      decompressedBytes: mb(env.QUIRE_MAX_DECOMPRESSED_MB, 512),
      maxPages: env.QUIRE_MAX_PAGES ?? 5000,
      maxCells: env.QUIRE_MAX_CELLS ?? 2_000_000,
      maxImagePixels: (env.QUIRE_MAX_IMAGE_MEGAPIXELS === undefined || env.QUIRE_MAX_IMAGE_MEGAPIXELS === '' ? 100 : Number(env.QUIRE_MAX_IMAGE_MEGAPIXELS)) * 1_000_000,
      readerHeapMb: env.QUIRE_READER_HEAP_MB ?? 768,
      readerThreads: env.QUIRE_READER_THREADS ?? cores,
    },
    network: { allowedHosts: list(env.QUIRE_ALLOWED_HOSTS) },
    webhooks: { retryDelaysMs: list(env.QUIRE_WEBHOOK_RETRY_DELAYS_S ?? '60,300,1800,7200').map((x) => Number(x) * 1000), timeoutMs: 30_000 },
    // the one default OCR language: the declared default of QUIRE_OCR_LANGUAGE (plugins get it as ctx.shared['ocr.language'])
    ocr: { concurrency: env.QUIRE_OCR_CONCURRENCY ?? cores, language: env.QUIRE_OCR_LANGUAGE ?? declaredDefault('QUIRE_OCR_LANGUAGE') },
    tools: { chromium: env.QUIRE_CHROMIUM_PATH ?? '/usr/bin/chromium' },
    http: { trustProxy: env.QUIRE_TRUST_PROXY ?? 'false', keepAliveMs: Math.round(secs(env.QUIRE_KEEPALIVE_S, 65)) },
    metrics: { enabled: env.QUIRE_METRICS ?? 'off', token: nonEmpty(env.QUIRE_METRICS_TOKEN), workerHealthPort: nonEmpty(env.QUIRE_WORKER_HEALTH_PORT) },
    plugins: {
      extra: list(env.QUIRE_PLUGINS),
      selected: {
        store: 'typeorm',
        storage: 'disk',
        transport: env.QUIRE_QUEUE_URL ? 'rabbitmq' : 'inprocess',
        chunker: 'default',
        embedder: env.QUIRE_EMBEDDER ?? 'local',
        'vector-store': env.QUIRE_VECTOR_STORE ?? 'embedded',
        extractor: 'layout',
        answerer: nonEmpty(env.QUIRE_ANSWERER) ?? 'offline',
        ocr: nonEmpty(env.QUIRE_OCR_ENGINE) ?? 'auto',
      },
      ...pluginOptions(env),
    },
    llm: { baseUrl: nonEmpty(env.QUIRE_LLM_BASE_URL), model: nonEmpty(env.QUIRE_LLM_MODEL), apiKey: nonEmpty(env.QUIRE_LLM_API_KEY) },
    chat: { minConfidence: nonEmpty(env.QUIRE_CHAT_MIN_CONFIDENCE) ?? 0.6 },
    embeddings: { baseUrl: nonEmpty(env.QUIRE_EMBEDDINGS_BASE_URL), model: nonEmpty(env.QUIRE_EMBEDDINGS_MODEL), apiKey: nonEmpty(env.QUIRE_EMBEDDINGS_API_KEY) },
    weaviate: { url: nonEmpty(env.QUIRE_WEAVIATE_URL), apiKey: nonEmpty(env.QUIRE_WEAVIATE_API_KEY) },
    workflows: {
      secretsKey: nonEmpty(env.QUIRE_SECRETS_KEY),
      schedulerIntervalMs: Math.round(secs(env.QUIRE_SCHEDULER_INTERVAL_S, 5)),
      expressionTimeoutMs: Math.round(secs(env.QUIRE_WORKFLOW_EXPRESSION_TIMEOUT_S, 2)),
      cronSeconds: env.QUIRE_CRON_SECONDS ?? 'false',
      maxExecutionsPerOrigin: env.QUIRE_WORKFLOW_MAX_EXECUTIONS ?? 25,
      maxRunning: env.QUIRE_WORKFLOW_MAX_RUNNING ?? 10,
    },
  };
  const merged = mergeDeep(raw, overrides);
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const msgs = parsed.error.issues.map((i) => {
      const p = i.path.join('.');
      const src = SOURCE[p] ?? (p.startsWith('plugins.options.') ? SOURCE['plugins.options'] : undefined);
      return `${src ? `${src} (${p})` : p}: ${i.message}`;
    });
    throw new ConfigError(`Invalid configuration: ${msgs.join('; ')}`);
  }
  const cfg = parsed.data;
  if (cfg.plugins.selected.embedder === 'openai' && !cfg.embeddings.baseUrl) throw new ConfigError('Invalid configuration: QUIRE_EMBEDDER=openai needs QUIRE_EMBEDDINGS_BASE_URL');
  if (cfg.plugins.selected['vector-store'] === 'weaviate' && !cfg.weaviate.url) throw new ConfigError('Invalid configuration: QUIRE_VECTOR_STORE=weaviate needs QUIRE_WEAVIATE_URL');
  if (!cfg.publicUrl) cfg.publicUrl = `http://localhost:${cfg.port}`;
  return deepFreeze(cfg);
}

/**
 * Variables read outside this module's table: set by Quire itself (QUIRE_ISOLATE_DATA, for its isolates) or
 * used by the test suite and the benchmarks (prefixes).
 */
const INTERNAL_VARIABLES = ['QUIRE_ISOLATE_DATA'];
const NON_CONFIG_PREFIXES = ['QUIRE_TEST_', 'QUIRE_BENCH_'];
const NON_CONFIG_VARIABLES = ['QUIRE_CORPUS'];

/** Every QUIRE_* name Quire reads (the configuration table, plugin options, internal ones). */
export function knownVariables(): Set<string> {
  return new Set([...ENV_VARS.map((v) => v.name), ...PLUGIN_ENV.map((p) => p.env), ...INTERNAL_VARIABLES, ...NON_CONFIG_VARIABLES]);
}

/**
 * QUIRE_* variables of `env` that Quire does not read (a misspelling is otherwise ignored in silence), each
 * with the closest known name when one is near.
 */
export function unknownVariables(env: NodeJS.ProcessEnv = process.env): { name: string; closest: string | null }[] {
  const known = knownVariables();
  const out: { name: string; closest: string | null }[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('QUIRE_') || known.has(name) || NON_CONFIG_PREFIXES.some((p) => name.startsWith(p))) continue;
    let closest: string | null = null;
    let best = Infinity;
    for (const k of known) {
      const d = distance(name, k);
      if (d < best) [best, closest] = [d, k];
    }
    // near enough to be the same name misspelt: a third of its length at most
    out.push({ name, closest: closest && best <= Math.max(2, Math.floor(name.length / 3)) ? closest : null });
  }
  return out;
}

/** One warning line per unknown QUIRE_* variable (empty when there is none). */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  return unknownVariables(env).map((u) => `${u.name} is not a Quire setting and is ignored${u.closest ? ` (did you mean ${u.closest}?)` : ''}`);
}

/** Plugin options from QUIRE_PLUGIN_OPTIONS and the variables of PLUGIN_ENV (which win), with where each came from. */
function pluginOptions(env: NodeJS.ProcessEnv): { options: Record<string, Record<string, unknown>>; sources: Record<string, string> } {
  const options: Record<string, Record<string, unknown>> = {};
  const sources: Record<string, string> = {};
  const generic = nonEmpty(env.QUIRE_PLUGIN_OPTIONS);
  if (generic) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(generic);
    } catch (e) {
      throw new ConfigError(`Invalid configuration: QUIRE_PLUGIN_OPTIONS is not JSON: ${(e as Error).message}`);
    }
    const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
    if (!isObject(parsed) || !Object.values(parsed).every(isObject)) throw new ConfigError('Invalid configuration: QUIRE_PLUGIN_OPTIONS must be a JSON object of option objects keyed by <kind>:<name>, e.g. {"reader:pdf": {"workers": 2}}');
    for (const [plugin, opts] of Object.entries(parsed)) {
      options[plugin] = { ...(opts as Record<string, unknown>) };
      for (const option of Object.keys(opts as object)) sources[`${plugin}.${option}`] = 'QUIRE_PLUGIN_OPTIONS';
    }
  }
  for (const { env: name, plugin, option, type = 'string' } of PLUGIN_ENV) {
    const raw = nonEmpty(env[name])?.trim();
    if (raw === undefined) continue;
    let value: unknown = raw;
    if (type === 'int') {
      value = Number(raw);
      if (!Number.isInteger(value)) throw new ConfigError(`Invalid configuration: ${name} (plugin ${plugin} option ${option}): expected an integer, got ${JSON.stringify(raw)}`);
    } else if (type === 'bool' || type === 'off') {
      const parsed = bool.safeParse(raw.toLowerCase());
      if (!parsed.success) throw new ConfigError(`Invalid configuration: ${name} (plugin ${plugin} option ${option}): expected 1, 0, true, false, yes or no, got ${JSON.stringify(raw)}`);
      value = type === 'off' ? !parsed.data : parsed.data;
    }
    (options[plugin] ??= {})[option] = value;
    sources[`${plugin}.${option}`] = name;
  }
  // the embedded store's column layout pays for sparse query vectors (the local hash embedder's); another
  // embedder's dense ones scan three times faster row by row, unless a layout is set
  if ((nonEmpty(env.QUIRE_EMBEDDER) ?? 'local') !== 'local' && options['vector-store:embedded']?.layout === undefined) {
    (options['vector-store:embedded'] ??= {}).layout = 'rows';
    sources['vector-store:embedded.layout'] = 'QUIRE_EMBEDDER';
  }
  return { options, sources };
}

function mergeDeep(a: any, b: any): any {
  if (!b || typeof b !== 'object' || Array.isArray(b)) return b === undefined ? a : b;
  const out: any = { ...(a ?? {}) };
  for (const [k, v] of Object.entries(b)) out[k] = v && typeof v === 'object' && !Array.isArray(v) ? mergeDeep(out[k], v) : v;
  return out;
}
