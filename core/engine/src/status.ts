/**
 * What a process runs on, as people read it: the database, the queue, whether it runs the pipeline stages.
 * Printed at start and shown by /readyz.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PLUGIN_KINDS } from '@quire/core';
import type { QuireConfig } from '@quire/config';
import type { Engine } from './engine.js';

/** A URL with its password replaced by ***, for logs. */
export function hidePassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.href;
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** The database this config opens: the SQLite file, or the MySQL URL without its password. */
export function describeDatabase(config: Readonly<QuireConfig>): string {
  const opt = config.plugins.options['store:typeorm']?.url;
  const url = typeof opt === 'string' ? opt : config.db.url;
  if (!url || url.startsWith('sqlite:')) {
    if (!url) return `sqlite ${path.join(config.dataDir, 'quire.db')}`;
    // sqlite:relative, sqlite:///absolute, sqlite::memory: (the store refuses a bad one at start, with the reason)
    const file = decodeURIComponent(url.slice('sqlite:'.length).replace(/^\/\//, '').split('?')[0]!);
    return file ? `sqlite ${file === ':memory:' ? file : path.resolve(file)}` : url;
  }
  return hidePassword(url);
}

/** The queue the pipeline stages go through. */
export function describeQueue(config: Readonly<QuireConfig>): string {
  const transport = config.plugins.selected.transport;
  if (transport === 'inprocess') return 'in-process (this process only; messages kept in the database until handled)';
  if (transport === 'rabbitmq' && config.queue.url) return `rabbitmq ${hidePassword(config.queue.url)} (queue prefix ${config.queue.prefix})`;
  return transport ?? 'none';
}

/**
 * Whether this process runs the pipeline stages, and if not, what will: `on`, or `off: …` with what to do.
 * Shown at start and in /readyz, since uploads otherwise sit pending without a hint.
 */
export function stagesStatus(config: Readonly<QuireConfig>): string {
  const run = config.queue.runStages;
  if (Array.isArray(run)) return `on: ${run.join(', ')}`;
  if (run) return 'on';
  if (config.plugins.selected.transport === 'inprocess') return 'off: run quire worker, with QUIRE_QUEUE_URL (the in-process queue reaches no other process)';
  return 'off: run quire worker';
}

/** The start-up line about stages when this process does not run them (null when it does). */
export function stagesOffHint(config: Readonly<QuireConfig>): string | null {
  if (config.queue.runStages) return null;
  const what = 'pipeline stages are not run in this process (QUIRE_RUN_STAGES=false)';
  if (config.plugins.selected.transport === 'inprocess')
    return `${what}, and the in-process queue reaches no other process: set QUIRE_QUEUE_URL here and for \`quire worker\` (npm run worker), or unset QUIRE_RUN_STAGES; until then uploads stay pending`;
  return `${what}: start \`quire worker\` (npm run worker) with the same QUIRE_QUEUE_URL and database, or uploads stay pending`;
}


/** What a process says about itself once it has started: one structured log line (see startupSummary). */
export interface StartupSummary {
  version: string;
  role: string;
  listen: string | null;
  database: string;
  databaseKind: string;
  queue: string;
  queueKind: string;
  vectorStore: string;
  storage: string;
  dataDir: string;
  stages: string;
  plugins: string[];
  /** plugins that cannot do (all of) their work for want of a system binary or a model: plugin and reason */
  missing: { plugin: string; reason: string }[];
}

/** The version of the service: @quire/engine's package.json (one version for the whole repository). */
export function quireVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The start-up line of a connected engine: version, listen address, database, queue, vector store and
 * storage (kinds, and the addresses without passwords), the plugins loaded, and what is missing on the
 * machine (a plugin that is unhealthy, or says it needs something it did not find).
 */
export async function startupSummary(rt: Pick<Engine, 'config' | 'registry' | 'role'>, listen: string | null): Promise<StartupSummary> {
  const { config, registry } = rt;
  const plugins = PLUGIN_KINDS.flatMap((k) => registry.names(k).map((n) => `${k}:${n}`));
  const missing = (await registry.health()).filter((h) => !h.ok || /not found|not installed|needs /i.test(h.message ?? '')).map((h) => ({ plugin: h.plugin, reason: h.message ?? 'unhealthy' }));
  const database = describeDatabase(config);
  return {
    version: quireVersion(),
    role: rt.role,
    listen,
    database,
    databaseKind: database.split(/[\s:]/)[0]!,
    queue: describeQueue(config),
    queueKind: config.plugins.selected.transport ?? 'none',
    vectorStore: config.plugins.selected['vector-store'] ?? 'none',
    storage: config.plugins.selected.storage ?? 'none',
    dataDir: config.dataDir,
    stages: stagesStatus(config),
    plugins,
    missing,
  };
}
