import os from 'node:os';
import { EventBus, InProcessTransport, PipelineRuntime, inProcessTransportPlugin, mkdirPrivate } from '@quire/core';
import type { PluginRegistry } from '@quire/core';
import type { BlobStorage, Logger, PluginKind, Store, Transport } from '@quire/core';
import type { QuireConfig } from '@quire/config';
import { ensureBootstrapKey } from './accounts/keys.js';
import { startRetention } from './accounts/retention.js';
import { WebhookDispatcher } from './infra/webhooks.js';
import { callbackSecret, loadSigningSecret } from './infra/signing.js';
import { decryptSecret, secretsKey } from './infra/secrets.js';
import type { EngineContext, RuntimeRole } from './context.js';
import { definePipelines } from './pipelines.js';
import { jobInputKey } from './io/steps.js';
import { EVAL_LIMITS, EvalSandbox } from './infra/sandbox.js';
import { pluginRegistry } from './store-open.js';

export { openStore } from './store-open.js';
import { EngineMetrics } from './metrics.js';
import { systemClock } from './clock.js';
import type { Clock } from './clock.js';

/**
 * Built-in plugins, loaded through the same registry as third-party ones (which may override them), each with
 * its kind: the runner role imports only those of the kinds it starts (RUNNER_PLUGIN_KINDS), not the libraries
 * of generators, embedders, editors and integrations a parse never calls. A kind here that is not the loaded
 * plugin's fails the start.
 */
export const BUILTIN_PLUGINS: readonly (readonly [string, PluginKind])[] = [
  ['@quire/plugin-store-typeorm', 'store'],
  ['@quire/plugin-storage-disk', 'storage'],
  ['@quire/plugin-transport-rabbitmq', 'transport'],
  ['@quire/plugin-ocr-tesseract', 'ocr'],
  ['@quire/plugin-ocr-ppocr', 'ocr'],
  ['@quire/plugin-ocr-auto', 'ocr'],
  ['@quire/plugin-reader-pdf', 'reader'],
  ['@quire/plugin-reader-image', 'reader'],
  ['@quire/plugin-reader-office', 'reader'],
  ['@quire/plugin-reader-sheet', 'reader'],
  ['@quire/plugin-reader-slides', 'reader'],
  ['@quire/plugin-chunker-default', 'chunker'],
  ['@quire/plugin-embedder-local', 'embedder'],
  ['@quire/plugin-embedder-openai', 'embedder'],
  ['@quire/plugin-vector-embedded', 'vector-store'],
  ['@quire/plugin-vector-weaviate', 'vector-store'],
  ['@quire/plugin-llm-openai', 'llm'],
  ['@quire/plugin-extractor-layout', 'extractor'],
  ['@quire/plugin-answerer-offline', 'answerer'],
  ['@quire/plugin-splitter-default', 'splitter'],
  ['@quire/plugin-generator-default', 'generator'],
  ['@quire/plugin-generator-pdf', 'generator'],
  ['@quire/plugin-editor-pdf', 'editor'],
  ['@quire/plugin-integration-http', 'integration'],
  ['@quire/plugin-integration-slack', 'integration'],
  ['@quire/plugin-integration-email', 'integration'],
];


/**
 * The plugin kinds the runner starts: those of the parse pipeline (fetch, read, OCR, chunk) and what the engine
 * itself holds (store, blob storage, transport). Embedders, vector stores, LLMs, extractors, generators,
 * editors and integrations are never called by a parse, so a `quire-runner` call does not start them.
 */
export const RUNNER_PLUGIN_KINDS: readonly PluginKind[] = ['store', 'storage', 'transport', 'reader', 'ocr', 'chunker'];

/**
 * Everything a Quire process needs, built once from the frozen config: plugins, store, blob storage,
 * transport, event bus, pipelines, webhooks. The server, `quire worker` and the runner all use it.
 */
export class Engine implements EngineContext {
  readonly registry: PluginRegistry;
  readonly events = new EventBus();
  store!: Store;
  storage!: BlobStorage;
  transport!: Transport;
  pipelines!: PipelineRuntime;
  webhooks!: WebhookDispatcher;
  signingSecret!: string;
  readonly workflowSandbox: EvalSandbox;
  readonly workerId = `${os.hostname()}:${process.pid}`;
  /** this engine's Prometheus series (its own registry: several engines may share a process) */
  readonly metrics = new EngineMetrics(() => this.queueDepth());
  /** the time of rate-limit windows and of session and key expiry (the system clock; test servers set their own) */
  clock: Clock = systemClock;

  private constructor(readonly config: Readonly<QuireConfig>, readonly logger: Logger, readonly role: RuntimeRole) {
    this.registry = pluginRegistry(config, logger);
    this.workflowSandbox = new EvalSandbox({ ...EVAL_LIMITS, timeoutMs: config.workflows.expressionTimeoutMs });
  }

  static async create(config: Readonly<QuireConfig>, logger: Logger, role: RuntimeRole = 'server'): Promise<Engine> {
    const rt = Engine.prepare(config, logger, role);
    await rt.connect();
    return rt;
  }

  /**
   * An engine not yet connected (state `connecting`): its config, logger, metrics and event bus exist, its
   * store, storage, transport and pipelines come with connect(). The server listens with one of these, so
   * /healthz and /readyz answer while the database and the queue are still being reached.
   */
  static prepare(config: Readonly<QuireConfig>, logger: Logger, role: RuntimeRole = 'server'): Engine {
    return new Engine(config, logger, role);
  }

  /** `connecting` until connect() ends, then `ready`, or `failed` with the reason in `failure`. */
  state: 'connecting' | 'ready' | 'failed' = 'connecting';
  failure: string | null = null;
  private connecting: Promise<void> | null = null;

  /** Loads and starts the plugins, reaches the database and the queue, defines the pipelines (once). */
  connect(): Promise<void> {
    this.connecting ??= (async () => {
      try {
        await this.init();
        this.state = 'ready';
      } catch (e) {
        this.state = 'failed';
        this.failure = (e as Error).message;
        // plugins already started (worker threads, connections) must not keep the process alive
        await this.registry.close().catch(() => {});
        throw e;
      }
    })();
    return this.connecting;
  }

  private async init(): Promise<void> {
    const { config, registry, logger } = this;
    // the data dir, when it is made here, is the server's alone (0700; what goes in it is 0700 and 0600)
    await mkdirPrivate(config.dataDir);
    registry.register(inProcessTransportPlugin, undefined, '@quire/core');
    for (const [name, kind] of BUILTIN_PLUGINS) {
      if (this.role === 'runner' && !RUNNER_PLUGIN_KINDS.includes(kind)) continue;
      const def = await registry.load(name, import.meta.dirname);
      if (def.kind !== kind) throw new Error(`built-in plugin ${name} is of kind ${def.kind}, listed as ${kind}`);
    }
    for (const spec of config.plugins.extra) await registry.load(spec, process.cwd());
    await registry.start(this.role === 'runner' ? { kinds: RUNNER_PLUGIN_KINDS } : {});
    this.store = registry.get('store');
    this.storage = registry.get('storage');
    this.transport = registry.get('transport');
    await this.events.attach(this.transport, (e) => logger.warn({ err: (e as Error)?.message }, 'event handler failed'));
    this.signingSecret = loadSigningSecret(config.dataDir, config.secrets.signing);
    this.pipelines = new PipelineRuntime({
      store: this.store,
      transport: this.transport,
      logger: logger.child({ part: 'pipelines' }),
      workerId: this.workerId,
      concurrency: config.queue.concurrency,
      maxAttempts: config.queue.maxAttempts,
      leaseMs: config.queue.leaseMs,
      fairShare: config.queue.fairShare,
      observer: this.metrics.observer,
    });
    // deliveries are jobs of the `webhook` pipeline (infra/webhook-pipeline.ts), run by whichever process consumes it
    this.webhooks = new WebhookDispatcher(this.store, { allowedHosts: config.network.allowedHosts, retryDelaysMs: config.webhooks.retryDelaysMs, timeoutMs: config.webhooks.timeoutMs }, logger.child({ part: 'webhooks' }), this.pipelines, (stored) => decryptSecret(secretsKey(this), stored), (userId) => callbackSecret(this.signingSecret, userId));
    definePipelines(this);
    if (this.role !== 'runner') await this.recoverInterrupted();
    if (this.role === 'server') await this.webhooks.queueOrphans();
    if (this.role === 'server') startRetention(this);
    if (config.auth.bootstrapKey && this.role !== 'runner') await ensureBootstrapKey(this.store, config.auth.bootstrapKey, config.auth.bootstrapPlan);
    // what is missing on this machine is said in the log; the runner logs nothing, so it does not ask
    if (this.role !== 'runner') for (const h of await registry.health()) {
      if (h.ok) continue;
      this.metrics.pluginFailed(h.plugin);
      logger.warn({ plugin: h.plugin }, `not available: ${h.message ?? 'unhealthy'}`);
    }
  }

  /**
   * Stage messages waiting per stage queue: the durable embedded queue's are rows of stage_messages (those
   * being handled included); other transports are asked queue by queue.
   */
  async queueDepth(): Promise<Record<string, number> | null> {
    if (!this.pipelines) return null;
    const out: Record<string, number> = {};
    for (const key of this.pipelines.stageKeys()) out[key] = 0;
    if (this.transport instanceof InProcessTransport && this.transport.durable) {
      for (const m of await this.store.repo('stage_messages').find()) out[m.queue] = (out[m.queue] ?? 0) + 1;
      return out;
    }
    for (const key of Object.keys(out)) out[key] = await this.transport.depth(key);
    return out;
  }

  /**
   * On the embedded queue this process is the only one that runs stages, so whatever was running when it
   * last stopped was interrupted: those stages are freed at once (their messages were kept in the store and
   * run again), and unfinished jobs that have no message left fail with a reason instead of staying
   * 'processing' for ever. Synchronous parses and extractions are pipeline jobs too: theirs resume with
   * their queued stage even though the caller that waited is gone.
   */
  private async recoverInterrupted(): Promise<void> {
    if (!(this.transport instanceof InProcessTransport) || !this.transport.durable) return;
    const freed = await this.store.repo('job_stages').update({ status: 'running' }, { status: 'failed', error: 'Interrupted: the service restarted' });
    const queued = new Set((await this.store.repo('stage_messages').find()).map((m) => m.job_id));
    let failed = 0;
    for (const job of await this.store.repo('jobs').find({ status: ['pending', 'processing'] })) {
      if (queued.has(job.id)) continue;
      if (await this.pipelines.fail(job.id, 'Interrupted: the service stopped before this job finished; submit it again')) failed++;
      await this.storage.delete(jobInputKey(job.id)).catch(() => {});
    }
    // a clean stop hands its running stages back to the queue: only stages left running or jobs left
    // without a message tell of an unclean one (a kill, a crash)
    if (freed || failed) this.logger.warn({ resumed: queued.size, stagesFreed: freed, failed }, 'recovered from an unclean stop: queued jobs resume, interrupted ones without a queued stage failed');
    else if (queued.size) this.logger.info({ resumed: queued.size }, 'queued jobs resume after a clean stop');
  }

  /**
   * Consume pipeline stages in this process (the server by default; `quire worker` always): the stage
   * queues given (`<pipeline>.<stage>`, or a stage name for that stage of every pipeline), else those
   * QUIRE_RUN_STAGES lists, else every one. Returns the queues consumed. `warmOcr: false` leaves the OCR
   * engine's models to the first scan even when the ocr stage runs here (a batch run of the runner).
   */
  async startStages(stages?: string[], options: { warmOcr?: boolean } = {}): Promise<string[]> {
    const listed = this.config.queue.runStages;
    const keys = this.stageQueues(stages ?? (Array.isArray(listed) ? listed : undefined));
    await this.pipelines.consume(keys);
    const consumed = keys ?? this.pipelines.stageKeys();
    // a process whose stages were chosen to include ocr (an OCR worker: QUIRE_RUN_STAGES=ocr, `quire worker
    // --stages ocr`) loads its OCR engine's models now, in the background (not under the first scan); a process
    // that runs every stage (the all-in-one default, test servers) or no ocr stage loads them only if it comes
    // to OCR something, so a service that never sees a scan never pays for them
    const chosen = stages ?? (Array.isArray(listed) ? listed : undefined);
    if (options.warmOcr !== false && chosen && consumed.some((k) => k.endsWith('.ocr'))) this.warmOcr();
    return consumed;
  }

  private warmOcr(): void {
    this.registry
      .tryGet('ocr')
      ?.warm?.().catch((err: unknown) => this.logger.warn({ err: (err as Error)?.message ?? String(err) }, 'the OCR engine could not be started ahead of the first scan'));
  }

  /** Stage queues of names: `<pipeline>.<stage>` as it is, a bare stage name as that stage of every pipeline. */
  stageQueues(names?: readonly string[]): string[] | undefined {
    if (!names) return undefined;
    const all = this.pipelines.stageKeys();
    const keys = names.flatMap((n) => {
      if (n.includes('.')) return [n];
      const of = all.filter((k) => k.slice(k.indexOf('.') + 1) === n);
      if (!of.length) throw new Error(`no pipeline has a stage named "${n}"; stage names: ${[...new Set(all.map((k) => k.slice(k.indexOf('.') + 1)))].join(', ')}`);
      return of;
    });
    return [...new Set(keys)];
  }

  async close(): Promise<void> {
    // a connect still under way ends first (its plugins are then closed below, or were closed by its failure)
    await this.connecting?.catch(() => {});
    await this.pipelines?.stop().catch(() => {});
    await this.workflowSandbox.close();
    await this.registry.close();
  }
}
