/**
 * The generic eraser: removes every row a user or an organization owns, in every table of the store, with
 * what hangs off those rows (a document's file, parsed content, chunks and vectors; a job's stored input and
 * results; rows of child tables that name an erased row). Account deletion (GDPR), organization deletion and
 * the retention job all use it.
 *
 * Why generic: the tables are discovered from the store (`Store.tables()`), not listed here, so a table added
 * later (generation, split, edit...) is covered as soon as it has `user_id`/`organization_id` columns, or a
 * `<parent>_id` column naming a table whose rows were erased (e.g. job_stages.job_id → jobs).
 */
import type { DocumentRecord, Store, TableName } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { deleteDocument } from '../io/documents.js';

export type EraseScope = { user_id: string } | { organization_id: string };

export interface EraseOptions {
  /** only rows created before this time (tables without `created_at` are then left alone) */
  before?: Date;
  /** only these tables (by default every table but the audit log, which keeps its entries anonymised) */
  tables?: TableName[];
}

/** Kept unless asked for by name: the audit log outlives the accounts it speaks of (spec §8.4). */
const KEPT_BY_DEFAULT = new Set<string>(['audit_log']);

/** Tables whose rows never own stored blobs: no `<table>/<id>/` prefix to remove (saves a storage call per row). */
const NO_BLOBS = new Set<string>(['usage', 'chunks', 'chat_messages', 'sessions', 'memberships', 'rate_counters', 'job_stages', 'stage_messages', 'audit_log', 'collection_documents', 'webhook_deliveries', 'workflow_ticks', 'workflow_triggers', 'workflow_inputs']);

const PAGE = 500;

type Row = { id: string; created_at?: Date | string | null } & Record<string, unknown>;

function allTables(store: Store): Record<string, string[]> {
  if (!store.tables) throw new Error('The store does not describe its tables (Store.tables), which erasing needs');
  return store.tables();
}

/** The table a `<x>_id` column points to, when that table exists: job_id → jobs, batch_id → batches. */
function parentOf(column: string, tables: Record<string, string[]>): string | null {
  if (!column.endsWith('_id') || column === 'user_id' || column === 'organization_id') return null;
  const base = column.slice(0, -3);
  for (const name of [`${base}s`, `${base}es`, base]) if (tables[name]) return name;
  if (base === 'knowledge_base') return 'collections';
  // parent_document_id, source_document_id...: a document
  if (base.endsWith('_document') && tables.documents) return 'documents';
  return null;
}

const createdBefore = (r: Row, before: Date) => r.created_at != null && new Date(r.created_at).getTime() < before.getTime();

/** The rows of `table` matching `where` (and older than `before`), page by page; `onPage` removes them. */
async function eachPage(store: Store, table: string, where: Record<string, unknown>, before: Date | undefined, onPage: (rows: Row[]) => Promise<void>): Promise<void> {
  const repo = store.repo(table as TableName) as unknown as { find(w: unknown, o: unknown): Promise<Row[]> };
  let skipped = 0;
  for (;;) {
    const rows = await repo.find(where, { limit: PAGE, offset: skipped || undefined });
    if (!rows.length) return;
    const doomed = before ? rows.filter((r) => createdBefore(r, before)) : rows;
    skipped += rows.length - doomed.length;
    if (doomed.length) await onPage(doomed);
    if (rows.length < PAGE) return;
  }
}

async function removeBlobs(rt: Engine, table: string, rows: Row[], columns: string[]): Promise<void> {
  const keyColumns = columns.filter((c) => c.endsWith('_key') && c !== 'api_key');
  for (const r of rows) {
    for (const c of keyColumns) if (typeof r[c] === 'string' && r[c]) await rt.storage.delete(r[c] as string).catch(() => {});
    if (!NO_BLOBS.has(table)) await rt.storage.deletePrefix(`${table}/${r.id}/`).catch(() => {});
  }
}

/** How long an erasure waits for each kind of work under way (stage runs, event handlers) before going ahead. */
export const QUIESCE_MS = 60_000;

/**
 * The work under way in this process on the jobs in `scope` ends before anything of the scope is erased, so
 * that none of its writes (which name the user or the organization) lands after the erasure: a job reads
 * completed before its completion hook has run (adding the document to its knowledge base, emitting
 * document.completed), and event handlers run after their event was emitted (webhook deliveries, workflow
 * executions). The running jobs `cancel` picks are cancelled, so that their stages stop soon; the stage runs
 * in progress of all the scope's jobs, their completion hooks included, and the event handlers under way are
 * waited for (at most QUIESCE_MS each). The caller mutes the scope's events first, so no handler starts for
 * them meanwhile. False when the wait ran out (logged; the erasure goes ahead).
 */
export async function quiesceScope(rt: Engine, scope: EraseScope, cancel: (job: { status: string; organization_id: string | null }) => boolean = () => true): Promise<boolean> {
  const active = rt.pipelines.activeJobIds();
  const theirs = active.length ? await rt.store.repo('jobs').find({ id: active, ...scope }) : [];
  for (const j of theirs) if ((j.status === 'pending' || j.status === 'processing') && cancel(j)) await rt.pipelines.cancel(j.id).catch(() => {});
  const settled = await rt.pipelines.settle(theirs.map((j) => j.id), QUIESCE_MS);
  const handled = await rt.events.settle(() => true, QUIESCE_MS);
  if (!settled || !handled) rt.logger.warn({ ...scope, stagesSettled: settled, handlersSettled: handled }, 'erasure: work still under way after the wait; erasing anyway');
  return settled && handled;
}

/**
 * Deletes, in every table with `user_id`/`organization_id`, the rows in scope (older than `before` when
 * given), then the rows of tables without that column which name an erased row. Documents go through the
 * document delete service (file, content, chunks, vectors, collection links, their jobs); running jobs are
 * cancelled first. Returns how many rows were removed per table.
 */
export async function eraseResources(rt: Engine, scope: EraseScope, options: EraseOptions = {}): Promise<Record<string, number>> {
  const tables = allTables(rt.store);
  const column = 'user_id' in scope ? 'user_id' : 'organization_id';
  const value = 'user_id' in scope ? scope.user_id : scope.organization_id;
  const wanted = (t: string) => (options.tables ? options.tables.includes(t as TableName) : !KEPT_BY_DEFAULT.has(t));
  const counts: Record<string, number> = {};
  const erased = new Map<string, Set<string>>();
  const note = (t: string, ids: string[]) => {
    counts[t] = (counts[t] ?? 0) + ids.length;
    let s = erased.get(t);
    if (!s) erased.set(t, (s = new Set()));
    for (const id of ids) s.add(id);
  };
  const usable = (t: string) => wanted(t) && (!options.before || tables[t]!.includes('created_at'));

  // documents first: their service removes files, content, chunks, vectors and their jobs
  if (tables.documents?.includes(column) && usable('documents')) {
    await eachPage(rt.store, 'documents', { [column]: value }, options.before, async (rows) => {
      for (const d of rows) await deleteDocument(rt, d as unknown as DocumentRecord);
      note('documents', rows.map((r) => r.id));
    });
  }
  // jobs next, so that none is left running over rows about to disappear
  if (tables.jobs?.includes(column) && usable('jobs')) {
    await eachPage(rt.store, 'jobs', { [column]: value }, options.before, async (rows) => {
      for (const j of rows) if (j.status === 'pending' || j.status === 'processing') await rt.pipelines.cancel(j.id).catch(() => {});
      await removeBlobs(rt, 'jobs', rows, tables.jobs!);
      await rt.store.repo('jobs').delete({ id: rows.map((r) => r.id) });
      note('jobs', rows.map((r) => r.id));
    });
  }
  // every other table that has the scope column
  for (const [t, cols] of Object.entries(tables)) {
    if (t === 'documents' || t === 'jobs' || !cols.includes(column) || !usable(t)) continue;
    await eachPage(rt.store, t, { [column]: value }, options.before, async (rows) => {
      await removeBlobs(rt, t, rows, cols);
      await (rt.store.repo(t as TableName) as unknown as { delete(w: unknown): Promise<number> }).delete({ id: rows.map((r) => r.id) });
      note(t, rows.map((r) => r.id));
    });
  }
  // rows naming an erased row, page by page, until nothing more goes: child tables without the scope column
  // (job_stages.job_id, collection_documents.collection_id...) whatever `tables` selects, so a child is never
  // left without its parent; and in every table, what was derived from an erased document (edits, edit jobs,
  // extractions, split sections...), whoever owns it: a filled form of the user's document that went into an
  // organization goes with the document. A split section's own document (the part split off) goes too.
  const visited = new Map<string, Set<string>>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [t, cols] of Object.entries(tables)) {
      if (KEPT_BY_DEFAULT.has(t) && !options.tables?.includes(t as TableName)) continue;
      for (const c of cols) {
        const parent = parentOf(c, tables);
        if (!parent || (cols.includes(column) && parent !== 'documents')) continue;
        let seen = visited.get(`${t}.${c}`);
        if (!seen) visited.set(`${t}.${c}`, (seen = new Set()));
        const ids = [...(erased.get(parent) ?? [])].filter((id) => !seen.has(id));
        for (const id of ids) seen.add(id);
        for (let i = 0; i < ids.length; i += PAGE) {
          const rows = await (rt.store.repo(t as TableName) as unknown as { find(w: unknown): Promise<Row[]> }).find({ [c]: ids.slice(i, i + PAGE) });
          if (!rows.length) continue;
          if (t === 'documents') {
            for (const d of rows) await deleteDocument(rt, d as unknown as DocumentRecord);
          } else {
            // outputs derived from a document may own files (an edit's output); plain child rows own none
            if (parent === 'documents') await removeBlobs(rt, t, rows, cols);
            await (rt.store.repo(t as TableName) as unknown as { delete(w: unknown): Promise<number> }).delete({ id: rows.map((r) => r.id) });
          }
          note(t, rows.map((r) => r.id));
          grew = true;
          if (c === 'parent_document_id') {
            const parts = rows.map((r) => r.document_id).filter((d): d is string => typeof d === 'string');
            const docs = parts.length ? await rt.store.repo('documents').find({ id: parts }) : [];
            for (const d of docs) await deleteDocument(rt, d);
            note('documents', docs.map((d) => d.id));
          }
        }
      }
    }
  }
  return counts;
}
