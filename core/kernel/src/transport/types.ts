/** A unit of pipeline work: run `stage` of `pipeline` for `jobId`. Payloads stay small (ids, options); data lives in the store. */
export interface StageMessage {
  /** unique per message (a retry keeps it) */
  id: string;
  jobId: string;
  pipeline: string;
  stage: string;
  payload: Record<string, unknown>;
  /** 1 on the first delivery */
  attempt: number;
}

/** A cross-process platform event (document.completed, extraction.completed, ...). */
export interface QuireEvent {
  id: string;
  type: string;
  /** ISO 8601 */
  timestamp: string;
  user_id: string | null;
  organization_id: string | null;
  data: Record<string, unknown>;
}

export interface ConsumeOptions {
  /** messages in flight per consumer */
  prefetch: number;
  /** deliveries before a message goes to the dead-letter queue */
  maxAttempts: number;
}

export type StageHandler = (msg: StageMessage) => Promise<void>;

/**
 * Moves stage messages between producers and consumers. In-process by default; RabbitMQ (amqplib) when
 * QUIRE_QUEUE_URL is set. A handler that resolves acks the message; one that throws is retried with
 * backoff up to maxAttempts, then dead-lettered. Delivery is at-least-once: handlers make completion
 * exactly-once through Store.claimStage.
 */
export interface Transport {
  readonly name: string;
  publish(msg: StageMessage): Promise<void>;
  consume(stage: string, handler: StageHandler, options: ConsumeOptions): Promise<{ cancel(): Promise<void> }>;
  publishEvent(event: QuireEvent): Promise<void>;
  subscribeEvents(handler: (event: QuireEvent) => void): Promise<void>;
  /** messages waiting per stage (for analytics/realtime and readiness) */
  depth(stage: string): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
