import { randomUUID } from 'node:crypto';
import type { Owned, Store } from '@quire/core';

/** Spec §8.3 credit costs. */
export const CREDIT_COSTS = {
  parse: 1.5, // per page
  ocr_agentic: 3.0, // per page
  extract: 2.0, // per extraction
  chat: 0.1, // per query
  generate: 1.0, // per document
} as const;
export type Operation = keyof typeof CREDIT_COSTS;

export function creditsFor(operation: Operation, units: number): number {
  return Math.round(CREDIT_COSTS[operation] * units * 100) / 100;
}

/** Writes one usage row and returns the credits it cost; `metrics` (the engine's) counts them. */
export async function charge(store: Store, owner: Owned, operation: Operation, units: number, resourceId: string | null, metrics?: { charged(operation: string, credits: number): void }): Promise<number> {
  const credits = creditsFor(operation, units);
  await store.repo('usage').insert({ id: randomUUID(), user_id: owner.user_id, organization_id: owner.organization_id, operation, units, credits, resource_id: resourceId, created_at: new Date() });
  metrics?.charged(operation, credits);
  return credits;
}
