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
import { ERASED } from '@quire/core';
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

/** The jobs an erasure fences: a user's own (no organization), or an organization's. */
export type FencedJobs = { user_id: string; organization_id: null } | { organization_id: string };

/**
 * The fence of an erasure, committed before anything is erased: every job of `parts` gets the error ERASED,
 * the pending and running ones failing with it (their stages stop, wherever they run: a worker's watch
 * aborts a stage whose job failed). A stage run or completion hook that ends after this finds its job erased
 * (or gone, once erased) and removes what it wrote (PipelineDefinition.discard), in every process; one that
 * ended before wrote before the erasure began, so the erasure finds what it wrote. Returns the ids of the
 * jobs that were pending or running.
 */
async function fenceJobs(rt: Engine, parts: FencedJobs[]): Promise<string[]> {
  const jobs = rt.store.repo('jobs');
  const live: string[] = [];
  for (const where of parts) {
    for (;;) {
      const page = await jobs.find({ ...where, status: ['pending', 'processing'] }, { limit: PAGE });
      if (!page.length) break;
      const now = new Date();
      await jobs.update({ id: page.map((j) => j.id), status: ['pending', 'processing'] }, { status: 'failed', error: ERASED, completed_at: now, updated_at: now });
      live.push(...page.map((j) => j.id));
    }
    // finished ones too: a completion hook may still be under way on one
    await jobs.update({ ...where, status: ['completed', 'failed'] }, { error: ERASED });
  }
  return live;
}

/**
 * Waits until no stage of these jobs runs in another process: its job_stages row is no longer `running`, or
 * its holder lost the lease (its job shows no heartbeat for the lease: a failed job gets none, so at most the
 * lease after the fence). Until `deadline` at most. True when none runs.
 */
async function otherProcessesSettled(rt: Engine, jobIds: string[], deadline: number): Promise<boolean> {
  const leaseMs = rt.config.queue.leaseMs;
  for (;;) {
    let held = 0;
    for (let i = 0; i < jobIds.length && !held; i += PAGE) {
      const rows = await rt.store.repo('job_stages').find({ job_id: jobIds.slice(i, i + PAGE), status: 'running' });
      if (!rows.length) continue;
      const now = Date.now();
      const jobs = await rt.store.repo('jobs').find({ id: [...new Set(rows.map((r) => r.job_id))] });
      held = jobs.filter((j) => now - new Date(j.updated_at).getTime() <= leaseMs).length;
    }
    if (!held) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((r) => setTimeout(r, Math.min(left, Math.max(20, Math.min(250, leaseMs / 8)))));
  }
}

/**
 * The work under way on the jobs in `scope` ends, or is fenced off, before anything of the scope is erased,
 * so that none of its writes (which name the user or the organization) outlives the erasure. First the fence
 * (fenceJobs) on the jobs of `fenced` (the scope's jobs that go with it; for an account, not those of the
 * organizations that go on). Then the waits (at most QUIRE_ERASE_WAIT_S each, privacy.eraseWaitMs): the stage runs in progress in this
 * process on all the scope's jobs, their completion hooks included (a job reads completed before its
 * completion hook has run: adding the document to its knowledge base, emitting document.completed); the
 * stage runs of the fenced jobs in other processes (until they end or lose their lease); the event handlers
 * under way here (webhook deliveries, workflow executions). The caller mutes the scope's events first, so no
 * handler starts for them meanwhile. False when a wait ran out (logged; the erasure goes ahead: what a run
 * still under way writes, it removes itself when it ends, as the fence makes it).
 */
export async function quiesceScope(rt: Engine, scope: EraseScope, fenced: FencedJobs[]): Promise<boolean> {
  const live = await fenceJobs(rt, fenced);
  const active = rt.pipelines.activeJobIds();
  const theirs = active.length ? await rt.store.repo('jobs').find({ id: active, ...scope }) : [];
  // this process's stages of the fenced jobs stop now (the fence already failed them: no hook runs again)
  const going = new Set(live);
  for (const j of theirs) if (going.has(j.id)) await rt.pipelines.cancel(j.id).catch(() => {});
  const wait = rt.config.privacy.eraseWaitMs;
  const settled = await rt.pipelines.settle(theirs.map((j) => j.id), wait);
  const elsewhere = await otherProcessesSettled(rt, live, Date.now() + wait);
  const handled = await rt.events.settle(() => true, wait);
  if (!settled || !elsewhere || !handled) rt.logger.warn({ ...scope, stagesSettled: settled, otherProcessesSettled: elsewhere, handlersSettled: handled }, 'erasure: work still under way after the wait; erasing anyway');
  return settled && elsewhere && handled;
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
