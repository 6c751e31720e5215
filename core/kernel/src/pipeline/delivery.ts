import type { ConsumeOptions } from '../transport/types.js';

/**
 * Consume options as the pipeline runtime passes them: the transport's ConsumeOptions plus the backoff
 * between attempts. Transports read `retryDelayMs` when present and fall back to their own default.
 */
export interface RetryConsumeOptions extends ConsumeOptions {
  /** delay before delivery `attempt + 1` after delivery `attempt` failed */
  retryDelayMs?: (attempt: number) => number;
}

/**
 * Thrown by a handler to say "not now, deliver this message again later" without spending an attempt:
 * the stage is held by another live worker, or this worker is stopping. Transports put the message back
 * (after `delayMs`) with the same attempt number.
 */
export class RequeueError extends Error {
  readonly requeue = true as const;
  constructor(
    message: string,
    readonly delayMs = 0,
  ) {
    super(message);
    this.name = 'RequeueError';
  }
}

/** Duck-typed so transports in other packages recognise it without sharing a class instance. */
export function isRequeue(e: unknown): e is { requeue: true; delayMs?: number; message: string } {
  return !!e && typeof e === 'object' && (e as { requeue?: unknown }).requeue === true;
}

export function retryDelayOf(options: ConsumeOptions, fallback: (attempt: number) => number): (attempt: number) => number {
  const f = (options as RetryConsumeOptions).retryDelayMs;
  return typeof f === 'function' ? f : fallback;
}
