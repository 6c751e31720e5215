import { QuireError } from '@quire/core';
import type { Plan, Store } from '@quire/core';

/**
 * Spec §8.1: requests per minute and per day, by plan, per API key; the same figures bound a user over all
 * their keys and sessions together, so that making more keys does not multiply the limit.
 */
export const PLAN_LIMITS: Record<Plan, { minute: number; day: number }> = {
  free: { minute: 100, day: 10_000 },
  standard: { minute: 1_000, day: 100_000 },
  premium: { minute: 10_000, day: 1_000_000 },
};

interface Counter {
  count: number;
  resetAt: number;
}

/**
 * Fixed windows per key (minute and day). In memory for one process; in the database (Store.increment)
 * when several API processes share the load (QUIRE_RATE_LIMIT_STORE=db).
 */
export class RateLimiter {
  private memory = new Map<string, Counter>();
  private lastSweep: number;

  /** `now`: the engine's clock (Engine.clock), read at each request. */
  constructor(private readonly mode: 'memory' | 'db', private readonly store: () => Store, private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  private async hit(id: string, windowMs: number, now: number): Promise<Counter> {
    const start = Math.floor(now / windowMs) * windowMs;
    const resetAt = start + windowMs;
    const key = `${id}:${windowMs}:${start}`;
    if (this.mode === 'db') return { count: await this.store().increment(key, 1, new Date(resetAt)), resetAt };
    if (now - this.lastSweep > 60_000) {
      for (const [k, c] of this.memory) if (c.resetAt <= now) this.memory.delete(k);
      this.lastSweep = now;
    }
    const c = this.memory.get(key) ?? { count: 0, resetAt };
    c.count++;
    this.memory.set(key, c);
    return c;
  }

  /**
   * Counts the request against every subject (an API key and its user: `ids`), sets the X-RateLimit-*
   * headers from the subject nearest its limit and throws 429 when one is over.
   */
  async check(ctx: { set(field: string, value: string): void }, subject: { ids: string[]; plan: Plan }): Promise<void> {
    const now = this.now();
    const limits = PLAN_LIMITS[subject.plan] ?? PLAN_LIMITS.free;
    const counted = await Promise.all(subject.ids.map(async (id) => ({ minute: await this.hit(id, 60_000, now), day: await this.hit(id, 86_400_000, now) })));
    const left = (c: (typeof counted)[number]) => Math.min(limits.minute - c.minute.count, limits.day - c.day.count);
    const { minute, day } = counted.reduce((a, b) => (left(b) < left(a) ? b : a));
    const minuteLeft = limits.minute - minute.count;
    const dayLeft = limits.day - day.count;
    const dayBound = dayLeft < minuteLeft;
    const reset = dayBound ? day.resetAt : minute.resetAt;
    ctx.set('X-RateLimit-Limit', String(limits.minute));
    ctx.set('X-RateLimit-Remaining', String(Math.max(0, Math.min(minuteLeft, dayLeft))));
    ctx.set('X-RateLimit-Reset', String(Math.ceil(reset / 1000)));
    if (minuteLeft < 0 || dayLeft < 0) {
      const wait = Math.max(1, Math.ceil(((minuteLeft < 0 && !dayBound ? minute.resetAt : dayLeft < 0 ? day.resetAt : minute.resetAt) - now) / 1000));
      ctx.set('Retry-After', String(wait));
      throw new QuireError('rate_limit_exceeded', `Rate limit exceeded for the ${subject.plan} plan (${limits.minute}/minute, ${limits.day}/day); retry in ${wait} s`);
    }
  }
}
