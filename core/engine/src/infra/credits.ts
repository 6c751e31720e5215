/**
 * Credits (spec §8.3, §4.12): each plan has a monthly allocation (QUIRE_CREDITS_<PLAN>); the balance of a
 * calendar month (UTC) is the allocation less what the usage ledger charged in it.
 *
 * Who pays: a resource with an organization_id is billed to the organization (spec §4.14), whose allocation
 * is the one of its owner's plan; everything else is billed to the user. The two balances are separate: a
 * user's personal work never eats into an organization's credits, nor the other way round.
 *
 * Reserving up front: every chargeable operation (upload/ingest, parse, extraction runs and batches, chat,
 * embed, generation) calls reserveCredits() before any work starts. Under the billed account's lock, in one
 * transaction, it checks the balance less what is already held and records the new hold: the job row made
 * for the work carrying its cost (job.input.credit_hold, counted while the job is pending or processing),
 * or a credit_holds row for work without a job (a chat turn). Concurrent requests therefore see each
 * other's holds: together they never reserve more than the balance. Work is charged when it completes (the
 * usage row), and its hold ends with it (the job finishes, fails or is cancelled; the hold row is deleted),
 * so a parse is never cut short: it is either refused before it starts (402 INSUFFICIENT_CREDITS, nothing
 * read, nothing charged) or done and charged in full. Between the charge and the end of its job both count,
 * which errs on the side of refusing. Pages are not known before parsing: the estimate is the PDF's page
 * count (read from the file's page tree), a docx's or pptx's recorded page or slide count, one page
 * otherwise, and the actual count is charged; a document with more pages than estimated can leave the
 * balance below zero, and then everything is refused until the next month.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import fs from 'node:fs/promises';
import { QuireError, unzipLimited } from '@quire/core';
import type { DocumentRecord, Owned, Plan, Store, UsageRecord, Where } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { charge, creditsFor } from './ledger.js';
import type { Operation } from './ledger.js';
import { withLocalFile } from '../jobs.js';

/** The calendar month (UTC) holding `now`: [start, end). */
export function creditPeriod(now = new Date()): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

export function allocationOf(rt: Engine, plan: Plan | string): number {
  const c = rt.config.credits as Record<string, number>;
  return c[plan] ?? c.free ?? 0;
}

export interface BillingAccount {
  kind: 'user' | 'organization';
  id: string;
  plan: string;
  allocation: number;
  /** usage rows (and hold rows) billed to this account */
  where: Where<UsageRecord>;
}

/** The account a piece of work is billed to: the organization of the resource, else its user. */
export async function billingAccount(rt: Engine, owner: Owned): Promise<BillingAccount> {
  if (owner.organization_id) {
    const orgId = owner.organization_id;
    const owners = await rt.store.repo('memberships').find({ organization_id: orgId, role: 'owner' }, { order: { created_at: 'ASC' }, limit: 1 });
    const org = await rt.store.repo('organizations').get(orgId);
    const ownerId = owners[0]?.user_id ?? org?.created_by ?? owner.user_id;
    const plan = (await rt.store.repo('users').get(ownerId))?.plan ?? 'free';
    return { kind: 'organization', id: orgId, plan, allocation: allocationOf(rt, plan), where: { organization_id: orgId } };
  }
  const plan = (await rt.store.repo('users').get(owner.user_id))?.plan ?? 'free';
  return { kind: 'user', id: owner.user_id, plan, allocation: allocationOf(rt, plan), where: { user_id: owner.user_id, organization_id: null } };
}

/** Usage rows of the account since `start`, newest first (paged; stops at the first older row). */
export async function usageSince(store: Store, where: Where<UsageRecord>, start: Date): Promise<UsageRecord[]> {
  const out: UsageRecord[] = [];
  const page = 1000;
  for (let offset = 0; ; offset += page) {
    const rows = await store.repo('usage').find(where, { order: { created_at: 'DESC' }, limit: page, offset: offset || undefined });
    for (const r of rows) {
      if (r.created_at.getTime() < start.getTime()) return out;
      out.push(r);
    }
    if (rows.length < page) return out;
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Where a job keeps the credits its work will cost once done (job.input.credit_hold). */
export const CREDIT_HOLD = 'credit_hold';

/** The hold a job carries: set when it is created, counted against the balance until the job ends. */
export function holdOf(input: Record<string, unknown> | null | undefined): number {
  const v = input?.[CREDIT_HOLD];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/**
 * Credits held for the account (work accepted, not yet charged): the holds of its jobs still pending or
 * processing and its unexpired hold rows. `excludeJobId`: a job reserving again for itself.
 */
export async function heldCredits(store: Store, account: BillingAccount, excludeJobId?: string, now = new Date()): Promise<number> {
  const live = await store.repo('jobs').find({ ...account.where, status: ['pending', 'processing'] });
  const rows = await store.repo('credit_holds').find(account.where);
  const jobs = live.filter((j) => j.id !== excludeJobId).reduce((s, j) => s + holdOf(j.input), 0);
  return round2(jobs + rows.filter((h) => h.expires_at.getTime() > now.getTime()).reduce((s, h) => s + h.credits, 0));
}

/** What an account has used in the current month. */
export async function creditBalance(rt: Engine, owner: Owned, now = new Date(), store: Store = rt.store, known?: BillingAccount) {
  const account = known ?? (await billingAccount(rt, owner));
  const period = creditPeriod(now);
  const rows = await usageSince(store, account.where, period.start);
  const summary: Record<string, number> = { parse: 0, extract: 0, chat: 0, generate: 0 };
  let used = 0;
  for (const r of rows) {
    used += r.credits;
    const group = r.operation === 'ocr_agentic' ? 'parse' : r.operation;
    summary[group] = round2((summary[group] ?? 0) + r.credits);
  }
  used = round2(used);
  return { account, period, used, remaining: round2(account.allocation - used), summary };
}

/**
 * GET /api/user/credits (spec §4.12): the caller's personal balance, or with `organizationId` the balance
 * of that organization (the caller must belong to it). Self-hosted: the plan never lapses.
 */
export async function creditsReport(rt: Engine, userId: string, now = new Date(), organizationId: string | null = null) {
  const b = await creditBalance(rt, { user_id: userId, organization_id: organizationId }, now);
  const total = b.account.allocation;
  return {
    total_allocation: total,
    credits_used: b.used,
    credits_remaining: b.remaining,
    /** credits that work under way (uploads being processed, parses, extractions, chat turns) will cost once done */
    credits_held: await heldCredits(rt.store, b.account),
    percentage_used: total > 0 ? round2((b.used / total) * 100) : b.used > 0 ? 100 : 0,
    usage_summary: { parse: b.summary.parse ?? 0, extract: b.summary.extract ?? 0, chat: b.summary.chat ?? 0, generate: b.summary.generate ?? 0 },
    period: { start: b.period.start.toISOString(), end: b.period.end.toISOString() },
    subscription: { status: 'active', plan: b.account.plan, renews_at: b.period.end.toISOString() },
    ...(organizationId ? { organization_id: organizationId } : {}),
  };
}

/** The lock under which an account's balance is checked and a hold recorded (Store.lock). */
const accountLock = (account: BillingAccount) => `credits:${account.kind}:${account.id}`;

/**
 * Reserves the cost of `units` of `operation` before any work starts. In one transaction, under the billed
 * account's lock: the balance less what is held must cover the cost (else 402 INSUFFICIENT_CREDITS with
 * the cost, the balance and who is billed, and nothing is written), then `place(tx, cost)` records the hold
 * on the transaction's store: it inserts the job row whose input carries `credit_hold: cost` (or updates
 * the job's hold, with `excludeJobId` naming that job so that its old hold does not count). Returns what
 * `place` returns.
 */
export async function reserveCredits<R>(rt: Engine, owner: Owned, operation: Operation, units: number, place: (tx: Store, cost: number) => Promise<R>, opts: { excludeJobId?: string } = {}): Promise<R> {
  const cost = creditsFor(operation, Math.max(0, units));
  if (rt.role === 'runner') return place(rt.store, cost); // the runner has no accounts
  const account = await billingAccount(rt, owner);
  return rt.store.transaction(async (tx) => {
    await tx.lock(accountLock(account));
    const b = await creditBalance(rt, owner, new Date(), tx, account);
    const held = await heldCredits(tx, account, opts.excludeJobId);
    const available = round2(b.remaining - held);
    if (cost <= available && available > 0) return place(tx, cost);
    const who = account.kind === 'organization' ? 'The organization' : 'Your account';
    throw new QuireError('INSUFFICIENT_CREDITS', `${who} has ${Math.max(0, available)} credits left this month${held ? ` (${held} held by work under way)` : ''}; this ${operation} needs ${cost}`, {
      operation,
      units,
      required: cost,
      remaining: available,
      held,
      allocation: account.allocation,
      billed_to: { type: account.kind, id: account.id },
      renews_at: b.period.end.toISOString(),
    });
  });
}

/** A job's input with its hold (for reserveCredits' `place`). */
export const withHold = <T extends { input: Record<string, unknown> | null }>(job: T, hold: number): T => ({ ...job, input: { ...(job.input ?? {}), [CREDIT_HOLD]: hold } });

/** How long a hold row counts when its work neither settles nor releases it (the process died). */
const HOLD_ROW_TTL_MS = 60 * 60 * 1000;

export interface CreditHold {
  cost: number;
  /**
   * Charges the work (the usage row) and ends the hold, in one transaction; returns the credits charged.
   * `units`: what the work turned out to use (pages read), when not the units reserved.
   */
  settle(resourceId: string | null, units?: number): Promise<number>;
  /** Ends the hold without charging (the work failed or was cancelled). Idempotent. */
  release(): Promise<void>;
}

/**
 * Reserves for work that has no job row (a chat turn): a credit_holds row, recorded under the account's
 * lock as reserveCredits does; the caller settles it when the work is done or releases it when it fails.
 */
export async function holdCredits(rt: Engine, owner: Owned, operation: Operation, units: number): Promise<CreditHold> {
  const id = randomUUID();
  const cost = await reserveCredits(rt, owner, operation, units, async (tx, c) => {
    const now = new Date();
    if (rt.role !== 'runner') await tx.repo('credit_holds').insert({ id, ...owner, operation, credits: c, created_at: now, expires_at: new Date(now.getTime() + HOLD_ROW_TTL_MS) });
    return c;
  });
  return {
    cost,
    settle: (resourceId, used = units) =>
      rt.store.transaction(async (tx) => {
        await tx.repo('credit_holds').delete(id);
        return charge(tx, owner, operation, used, resourceId, rt.metrics);
      }),
    release: async () => {
      await rt.store.repo('credit_holds').delete(id);
    },
  };
}

const PAGES_RE = /\/Type\s*\/Pages\b[^]{0,400}?\/Count\s+(\d+)|\/Count\s+(\d+)[^]{0,400}?\/Type\s*\/Pages\b/g;

/**
 * Largest `/Count n` of a `/Type /Pages` object in the file's raw bytes (the page tree's root), or null when
 * the tree is not in plain sight (compressed object streams). Read 1 MB at a time with an overlap, so a
 * large file is never held whole.
 */
async function scanPageCount(file: string): Promise<number | null> {
  let best: number | null = null;
  let carry = '';
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const text = carry + (chunk as Buffer).toString('latin1');
    PAGES_RE.lastIndex = 0;
    for (let m = PAGES_RE.exec(text); m; m = PAGES_RE.exec(text)) {
      const n = Number(m[1] ?? m[2]);
      if (Number.isFinite(n) && (best === null || n > best)) best = n;
    }
    carry = text.slice(-1024);
  }
  return best;
}

async function isPdf(file: string): Promise<boolean> {
  const h = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(1024);
    const { bytesRead } = await h.read(buf, 0, 1024, 0);
    return buf.subarray(0, bytesRead).includes('%PDF-');
  } finally {
    await h.close();
  }
}

/** bytes of a PDF read to look into its object streams at most, and bytes inflated from them at most */
const OBJSTM_FILE_MAX_BYTES = 20 * 1024 * 1024;
const OBJSTM_INFLATED_MAX_BYTES = 8 * 1024 * 1024;
const OBJSTM_MAX_STREAMS = 256;

/**
 * Largest `/Count n` of a `/Type /Pages` object inside the file's compressed object streams (/Type /ObjStm,
 * FlateDecode), or null. Bounded: files up to 20 MB, 256 streams, 8 MB inflated in all; inflating runs on
 * libuv's thread pool, the search for the streams is a byte search.
 */
async function objectStreamPageCount(file: string): Promise<number | null> {
  if ((await fs.stat(file)).size > OBJSTM_FILE_MAX_BYTES) return null;
  const buf = await fs.readFile(file);
  let budget = OBJSTM_INFLATED_MAX_BYTES;
  let best: number | null = null;
  let streams = 0;
  for (let at = buf.indexOf('/ObjStm'); at >= 0 && budget > 0 && streams < OBJSTM_MAX_STREAMS; at = buf.indexOf('/ObjStm', at + 7)) {
    const kw = buf.indexOf('stream', at);
    if (kw < 0 || kw - at > 2048) continue;
    let start = kw + 6;
    if (buf[start] === 0x0d) start++;
    if (buf[start] === 0x0a) start++;
    const end = buf.indexOf('endstream', start);
    if (end < 0) break;
    streams++;
    let out: Buffer;
    try {
      out = await inflate(buf.subarray(start, end), { maxOutputLength: budget, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    } catch {
      continue; // not deflate, damaged, or past the budget
    }
    budget -= out.length;
    const text = out.toString('latin1');
    PAGES_RE.lastIndex = 0;
    for (let m = PAGES_RE.exec(text); m; m = PAGES_RE.exec(text)) {
      const n = Number(m[1] ?? m[2]);
      if (Number.isFinite(n) && (best === null || n > best)) best = n;
    }
    at = end;
  }
  return best;
}
const inflate = promisify(zlib.inflate);

/**
 * Bytes per page of a PDF whose page tree cannot be found within the bounds above, for the estimate: such files are
 * written by recent tools, whose text pages take some 20-100 KB each and scanned pages more; 100 KB keeps the
 * hold low rather than refusing work the balance covers.
 */
const BYTES_PER_PAGE = 100 * 1024;
const APP_XML_MAX_BYTES = 1024 * 1024;

/**
 * Pages of a docx or slides of a pptx as the application that saved it recorded them (docProps/app.xml,
 * <Pages> or <Slides>), read with the bounded zip reader; one when the file does not say.
 */
async function officePages(rt: Engine, key: string, format: 'docx' | 'pptx'): Promise<number> {
  try {
    const parts = await withLocalFile(rt.storage, key, async (file) =>
      unzipLimited(await fs.readFile(file), { maxTotalBytes: APP_XML_MAX_BYTES, label: format, filter: (e) => e.name === 'docProps/app.xml' }),
    );
    const xml = Buffer.from(parts['docProps/app.xml'] ?? new Uint8Array()).toString('utf8');
    const n = Number(xml.match(format === 'docx' ? /<Pages>\s*(\d+)\s*<\/Pages>/ : /<Slides>\s*(\d+)\s*<\/Slides>/)?.[1] ?? 0);
    return n > 0 ? Math.min(n, rt.config.limits.maxPages) : 1;
  } catch {
    return 1;
  }
}

/**
 * Pages to expect of a stored file before parsing it, for the credit check: a PDF's page count (its page
 * tree, found by a streaming scan of the bytes, or inside its compressed object streams inflated within a
 * budget; else one page per 100 KB of file: no PDF parser runs on the request path), a docx's pages and a pptx's slides as recorded in docProps/app.xml, one page for
 * any other format (every document costs at least a page).
 */
export async function estimatePages(rt: Engine, key: string, format?: string): Promise<number> {
  if (format === 'docx' || format === 'pptx') return officePages(rt, key, format);
  if (format && format !== 'pdf') return 1;
  try {
    return await withLocalFile(rt.storage, key, async (file) => {
      if (!(await isPdf(file))) return 1;
      const scanned = await scanPageCount(file);
      if (scanned !== null && scanned > 0) return Math.min(scanned, rt.config.limits.maxPages);
      // the page tree sits in compressed object streams: those are inflated within a budget (no PDF parser
      // on the request path); when it is not found there either, an estimate from the file's size
      const packed = await objectStreamPageCount(file);
      if (packed !== null && packed > 0) return Math.min(packed, rt.config.limits.maxPages);
      return Math.max(1, Math.min(Math.ceil((await fs.stat(file)).size / BYTES_PER_PAGE), rt.config.limits.maxPages));
    });
  } catch {
    return 1;
  }
}

/** Pages to reserve for a parse of an svc:// document: its known pages, else the estimate from its file. */
export async function documentParseUnits(rt: Engine, doc: DocumentRecord): Promise<number> {
  return doc.pages ?? (await estimatePages(rt, doc.storage_key, doc.file_type));
}
