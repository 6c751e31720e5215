/**
 * The retention job (spec §8.4): what has expired is deleted, files and vectors too.
 * - Organizations with `data_retention_days`: their data older than that many days — documents (with
 *   files, parsed content, chunks and vectors), jobs, extractions, chat history, batches, deliveries,
 *   executions, uploads... — goes through eraseResources. Configuration (knowledge bases, schemas, presets,
 *   webhooks, workflows, integrations), memberships, usage and the audit log are not data and stay.
 * - Chat history older than 1 year (messages by their time, sessions by their last activity).
 * - Analytics (usage rows) older than 1 year.
 * - Audit entries older than 3 years.
 * Documents and extractions of users outside such organizations are kept until deleted.
 *
 * API processes run it every QUIRE_RETENTION_INTERVAL_S (startRetention, registered like the workflow
 * scheduler); runRetention can be called directly. Passes are idempotent, so several processes may run it.
 */
import type { Store, TableName } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { eraseResources } from './erase.js';
import { settingsOf } from './organizations.js';
import { everyInterval } from '../infra/periodic.js';

/** Spec §8.4, in calendar years. */
export const RETENTION_YEARS = { chat: 1, analytics: 1, audit: 3 } as const;

/** Tables an organization's data_retention_days leaves alone: settings and records, not data. */
const NOT_DATA = new Set<string>(['memberships', 'organizations', 'collections', 'schemas', 'presets', 'webhooks', 'workflows', 'integrations', 'usage', 'audit_log', 'api_keys', 'sessions', 'users', 'user_totp', 'rate_counters', 'chat_sessions', 'generation_templates', 'split_configs', 'edit_configs', 'edit_vocabulary', 'consents', 'deletion_requests', 'data_export_requests']);

const PAGE = 500;

export interface RetentionReport {
  /** rows removed per organization and table */
  organizations: Record<string, Record<string, number>>;
  chat_messages: number;
  chat_sessions: number;
  usage: number;
  audit_log: number;
}

function yearsBefore(now: Date, years: number): Date {
  const d = new Date(now);
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d;
}

/**
 * Deletes the rows of `table` matching `where` whose `column` is before `cutoff`, oldest first, a page at
 * a time (the store filters by equality only, so pages are read in time order and stop at the first row
 * that is not old enough). Returns the ids removed.
 */
async function pruneOlder<N extends 'chat_messages' | 'chat_sessions' | 'usage' | 'audit_log'>(store: Store, table: N, where: Record<string, unknown>, column: 'created_at' | 'updated_at', cutoff: Date): Promise<string[]> {
  const repo = store.repo(table) as unknown as { find(w: unknown, o: unknown): Promise<{ id: string; [k: string]: unknown }[]>; delete(w: unknown): Promise<number> };
  const removed: string[] = [];
  for (;;) {
    const rows = await repo.find(where, { order: { [column]: 'ASC' }, limit: PAGE });
    const old = rows.filter((r) => new Date(r[column] as Date).getTime() < cutoff.getTime());
    if (old.length) {
      await repo.delete({ id: old.map((r) => r.id) });
      removed.push(...old.map((r) => r.id));
    }
    if (old.length < rows.length || rows.length < PAGE) return removed;
  }
}

/** Chat sessions idle since before the cutoff, with all their messages. */
async function pruneSessions(store: Store, where: Record<string, unknown>, cutoff: Date): Promise<{ sessions: number; messages: number }> {
  const ids = await pruneOlder(store, 'chat_sessions', where, 'updated_at', cutoff);
  let messages = 0;
  for (let i = 0; i < ids.length; i += PAGE) messages += await store.repo('chat_messages').delete({ session_id: ids.slice(i, i + PAGE) });
  return { sessions: ids.length, messages };
}

/** One retention pass as of `now`. */
export async function runRetention(rt: Engine, now = new Date()): Promise<RetentionReport> {
  const store = rt.store;
  const report: RetentionReport = { organizations: {}, chat_messages: 0, chat_sessions: 0, usage: 0, audit_log: 0 };
  const tables = store.tables ? Object.keys(store.tables()) : [];
  const dataTables = tables.filter((t) => !NOT_DATA.has(t)) as TableName[];
  for (const org of await store.repo('organizations').find({})) {
    const days = settingsOf(org).data_retention_days;
    if (!days) continue;
    const cutoff = new Date(now.getTime() - days * 86_400_000);
    const counts = dataTables.length ? await eraseResources(rt, { organization_id: org.id }, { before: cutoff, tables: dataTables }) : {};
    const chat = await pruneSessions(store, { organization_id: org.id }, cutoff);
    if (chat.sessions) counts.chat_sessions = (counts.chat_sessions ?? 0) + chat.sessions;
    if (chat.messages) counts.chat_messages = (counts.chat_messages ?? 0) + chat.messages;
    if (Object.values(counts).some((n) => n > 0)) report.organizations[org.id] = counts;
  }
  const chatCutoff = yearsBefore(now, RETENTION_YEARS.chat);
  report.chat_messages += (await pruneOlder(store, 'chat_messages', {}, 'created_at', chatCutoff)).length;
  const chat = await pruneSessions(store, {}, chatCutoff);
  report.chat_sessions += chat.sessions;
  report.chat_messages += chat.messages;
  report.usage = (await pruneOlder(store, 'usage', {}, 'created_at', yearsBefore(now, RETENTION_YEARS.analytics))).length;
  report.audit_log = (await pruneOlder(store, 'audit_log', {}, 'created_at', yearsBefore(now, RETENTION_YEARS.audit))).length;
  return report;
}

/** The periodic pass of an API process; it stops when the engine closes. */
export function startRetention(rt: Engine): void {
  rt.registry.service('retention', () => {
    const log = rt.logger.child({ part: 'retention' });
    const pass = async () => {
      const r = await runRetention(rt);
      const n = r.chat_messages + r.chat_sessions + r.usage + r.audit_log + Object.values(r.organizations).reduce((a, c) => a + Object.values(c).reduce((x, y) => x + y, 0), 0);
      if (n) log.info({ ...r }, `retention removed ${n} rows`);
    };
    const passes = everyInterval(rt.config.retention.intervalMs, pass, (err) => log.warn({ err: err.message }, 'retention pass failed'));
    return { value: true, close: () => passes.stop() };
  });
}
