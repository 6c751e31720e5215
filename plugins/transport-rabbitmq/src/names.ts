/** Queue and exchange names, all under one prefix ('quire' unless configured). */
export interface Names {
  /** durable queue of a stage: `<prefix>.<pipeline>.<stage>` */
  stage(stage: string): string;
  /** durable queue holding messages of a stage during a retry delay; dead-letters back to the stage queue */
  retry(stage: string, delayMs: number): string;
  /** durable queue of messages given up on after maxAttempts */
  readonly dead: string;
  /** fanout exchange of platform events */
  readonly events: string;
}

export function names(prefix: string): Names {
  return {
    stage: (stage) => `${prefix}.${stage}`,
    retry: (stage, delayMs) => `${prefix}.${stage}.retry.${delayMs}`,
    dead: `${prefix}.dead`,
    events: `${prefix}.events`,
  };
}

/**
 * Delay buckets: a retry queue has one TTL for all its messages (no head-of-line blocking), so delays are
 * rounded to two significant digits to keep the number of retry queues small.
 */
export function bucket(delayMs: number): number {
  const ms = Math.max(0, Math.round(delayMs));
  if (ms < 100) return ms;
  const p = 10 ** (Math.floor(Math.log10(ms)) - 1);
  return Math.round(ms / p) * p;
}

/** Adds a heartbeat to the URL unless it sets one, so a dead broker connection is noticed within ~2 heartbeats. */
export function withHeartbeat(url: string, seconds: number): string {
  try {
    const u = new URL(url);
    if (!u.searchParams.has('heartbeat')) u.searchParams.set('heartbeat', String(seconds));
    return u.toString();
  } catch {
    return url;
  }
}

/** The URL without its password, for logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'amqp://(unparsable url)';
  }
}
