/**
 * Credits (spec §8.3, §4.12): each plan has a monthly allocation (QUIRE_CREDITS_<PLAN>); the balance of a
 * calendar month (UTC) is the allocation less what the usage ledger charged in it.
 *
 * Who pays: a resource with an organization_id is billed to the organization (spec §4.14), whose allocation
 * is the one of its owner's plan; everything else is billed to the user. The two balances are separate: a
 * user's personal work never eats into an organization's credits, nor the other way round.
 *
 * Refusing up front: assertCredits() is called before any work starts (upload/ingest, parse, extraction runs
 * and batches, chat, embed, generation). Work is charged when it completes, so a parse is never cut short:
 * it is either refused before it starts (402 INSUFFICIENT_CREDITS, nothing read, nothing charged) or done
 * and charged in full. Pages are not known before parsing: the estimate is the PDF's page count (read from
 * the file's page tree), one page otherwise, and the actual count is charged; a document with more pages
 * than estimated can leave the balance below zero, and then everything is refused until the next month.
 * Checks are not reservations: requests racing each other may together overshoot by what they cost.
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { QuireError } from '@quire/core';
import type { DocumentRecord, Owned, Plan, UsageRecord, Where } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { creditsFor } from '../services/ledger.js';
import type { Operation } from '../services/ledger.js';
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
  /** usage rows billed to this account */
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
export async function usageSince(rt: Engine, where: Where<UsageRecord>, start: Date): Promise<UsageRecord[]> {
  const out: UsageRecord[] = [];
  const page = 1000;
  for (let offset = 0; ; offset += page) {
    const rows = await rt.store.repo('usage').find(where, { order: { created_at: 'DESC' }, limit: page, offset: offset || undefined });
    for (const r of rows) {
      if (r.created_at.getTime() < start.getTime()) return out;
      out.push(r);
    }
    if (rows.length < page) return out;
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** What an account has used in the current month. */
export async function creditBalance(rt: Engine, owner: Owned, now = new Date()) {
  const account = await billingAccount(rt, owner);
  const period = creditPeriod(now);
  const rows = await usageSince(rt, account.where, period.start);
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
    percentage_used: total > 0 ? round2((b.used / total) * 100) : b.used > 0 ? 100 : 0,
    usage_summary: { parse: b.summary.parse ?? 0, extract: b.summary.extract ?? 0, chat: b.summary.chat ?? 0, generate: b.summary.generate ?? 0 },
    period: { start: b.period.start.toISOString(), end: b.period.end.toISOString() },
    subscription: { status: 'active', plan: b.account.plan, renews_at: b.period.end.toISOString() },
    ...(organizationId ? { organization_id: organizationId } : {}),
  };
}

/**
 * Refuses, before any work starts, an operation the balance cannot cover: 402 INSUFFICIENT_CREDITS with the
 * cost, the balance and who is billed. Generation and the other later operations call it the same way.
 */
export async function assertCredits(rt: Engine, owner: Owned, operation: Operation, units: number): Promise<void> {
  if (rt.role === 'runner') return; // the runner has no accounts
  const cost = creditsFor(operation, Math.max(0, units));
  const b = await creditBalance(rt, owner);
  if (cost <= b.remaining && b.remaining > 0) return;
  const who = b.account.kind === 'organization' ? 'The organization' : 'Your account';
  throw new QuireError('INSUFFICIENT_CREDITS', `${who} has ${Math.max(0, b.remaining)} credits left this month; this ${operation} needs ${cost}`, {
    operation,
    units,
    required: cost,
    remaining: b.remaining,
    allocation: b.account.allocation,
    billed_to: { type: b.account.kind, id: b.account.id },
    renews_at: b.period.end.toISOString(),
  });
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

const PDF_LIB_MAX_BYTES = 20 * 1024 * 1024;

/**
 * Pages to expect of a stored file before parsing it, for the credit check: a PDF's page count (its page
 * tree, found in the bytes; pdf-lib when the tree sits in a compressed object stream and the file is small
 * enough to load at once), one page for any other format (every document costs at least a page).
 */
export async function estimatePages(rt: Engine, key: string, format?: string): Promise<number> {
  if (format && format !== 'pdf') return 1;
  try {
    return await withLocalFile(rt.storage, key, async (file) => {
      if (!(await isPdf(file))) return 1;
      const scanned = await scanPageCount(file);
      if (scanned !== null && scanned > 0) return Math.min(scanned, rt.config.limits.maxPages);
      if ((await fs.stat(file)).size > PDF_LIB_MAX_BYTES) return 1;
      const doc = await PDFDocument.load(await fs.readFile(file), { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
      return Math.max(1, Math.min(doc.getPageCount(), rt.config.limits.maxPages));
    });
  } catch {
    return 1;
  }
}

/** The credit check of work on a stored file: its estimated pages at the parse rate. */
export async function assertParseCredits(rt: Engine, owner: Owned, key: string, format?: string): Promise<number> {
  const pages = await estimatePages(rt, key, format);
  await assertCredits(rt, owner, 'parse', pages);
  return pages;
}


/** The credit check of a parse of an svc:// document: its known pages, else the estimate from its file. */
export async function assertDocumentParseCredits(rt: Engine, owner: Owned, doc: DocumentRecord): Promise<void> {
  const pages = doc.pages ?? (await estimatePages(rt, doc.storage_key, doc.file_type));
  await assertCredits(rt, owner, 'parse', pages);
}
