/**
 * Prometheus metrics of one engine (prom-client, a registry per engine: several engines may share a
 * process). Counters are this process's: scrape the API and every worker. Served by the server's /metrics
 * and a worker's health port (QUIRE_METRICS=on, or QUIRE_METRICS_TOKEN as a bearer token; else 404).
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PipelineObserver } from '@quire/core';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const STAGE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export class EngineMetrics {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly jobs: Counter<'kind' | 'pipeline' | 'state'>;
  private readonly stages: Histogram<'pipeline' | 'stage' | 'status'>;
  private readonly ocrPages: Counter;
  private readonly credits: Counter<'operation'>;
  private readonly pluginFailures: Counter<'plugin'>;

  /** `depth` gives the messages waiting per stage queue (null: the transport cannot tell) */
  constructor(depth: () => Promise<Record<string, number> | null>) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'quire_' });
    this.httpRequests = new Counter({ name: 'quire_http_requests_total', help: 'HTTP requests by method, route template and status class', labelNames: ['method', 'route', 'status'], registers });
    this.httpDuration = new Histogram({ name: 'quire_http_request_duration_seconds', help: 'HTTP request latency by method, route template and status class', labelNames: ['method', 'route', 'status'], buckets: DURATION_BUCKETS, registers });
    this.jobs = new Counter({ name: 'quire_jobs_total', help: 'Jobs that reached a final state in this process, by kind (jobs.type), pipeline and state', labelNames: ['kind', 'pipeline', 'state'], registers });
    this.stages = new Histogram({ name: 'quire_stage_duration_seconds', help: 'Pipeline stage run time by pipeline, stage and outcome (completed, failed, retry)', labelNames: ['pipeline', 'stage', 'status'], buckets: STAGE_BUCKETS, registers });
    this.ocrPages = new Counter({ name: 'quire_ocr_pages_total', help: 'Pages read with OCR', registers });
    this.credits = new Counter({ name: 'quire_credits_charged_total', help: 'Credits charged, by operation', labelNames: ['operation'], registers });
    this.pluginFailures = new Counter({ name: 'quire_plugin_failures_total', help: 'Failures of a plugin: a reader that threw, a failed health check at start-up', labelNames: ['plugin'], registers });
    new Gauge({
      name: 'quire_queue_depth',
      help: 'Stage messages waiting, by stage queue (where the transport can tell)',
      labelNames: ['stage'],
      registers,
      async collect() {
        this.reset();
        const byStage = await depth().catch(() => null);
        for (const [stage, n] of Object.entries(byStage ?? {})) this.set({ stage }, n);
      },
    });
  }

  /** the route template (never the raw path: no ids in labels) and the status class (2xx, 4xx, ...) */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: `${Math.floor(status / 100)}xx` };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  readonly observer: PipelineObserver = {
    stage: (pipeline, stage, status, seconds) => this.stages.observe({ pipeline, stage, status }, seconds),
    job: (kind, pipeline, state) => this.jobs.inc({ kind, pipeline, state }),
  };

  ocr(pages: number): void {
    if (pages > 0) this.ocrPages.inc(pages);
  }

  charged(operation: string, credits: number): void {
    if (credits > 0) this.credits.inc({ operation }, credits);
  }

  pluginFailed(plugin: string): void {
    this.pluginFailures.inc({ plugin });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * Who may read /metrics: 'open' (QUIRE_METRICS=on without a token), 'ok' (the bearer token matches),
 * 'unauthorized' (a token is set and this is not it) or 'off' (404).
 */
export function metricsAccess(config: { metrics: { enabled: boolean; token?: string } }, authorization: string | undefined): 'open' | 'ok' | 'unauthorized' | 'off' {
  const { enabled, token } = config.metrics;
  if (token) {
    const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    if (!m) return 'unauthorized';
    // hashes of equal length: the comparison takes the same time whatever the given token
    const a = createHash('sha256').update(m[1]!.trim()).digest();
    const b = createHash('sha256').update(token).digest();
    return timingSafeEqual(a, b) ? 'ok' : 'unauthorized';
  }
  return enabled ? 'open' : 'off';
}
