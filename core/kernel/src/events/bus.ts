import { randomUUID } from 'node:crypto';
import type { QuireEvent, Transport } from '../transport/types.js';

export type EventHandler = (event: QuireEvent) => void | Promise<void>;

/** Spec §6.1 webhook events and the platform events used by workflow triggers. */
export const EVENT_TYPES = [
  'document.uploaded',
  'document.processing',
  'document.completed',
  'document.failed',
  'document.deleted',
  'document.processed',
  'extraction.started',
  'extraction.completed',
  'extraction.failed',
  'chat.message',
  'chat.session.created',
  'workflow.started',
  'workflow.completed',
  'workflow.failed',
  'workflow.step.completed',
  'split.completed',
  'split.failed',
] as const;

/**
 * The event bus. `emit` delivers to local handlers and, when a transport is attached, to every other
 * process (workers emit document.completed; the server process delivers webhooks).
 */
export class EventBus {
  private handlers = new Map<string, Set<EventHandler>>();
  /** handlers under way (those that returned a promise), with their event */
  private inFlight = new Map<Promise<void>, QuireEvent>();
  /** events that no handler gets (mute) */
  private muted = new Set<(event: QuireEvent) => boolean>();
  private transport: Transport | null = null;
  private onError: (e: unknown) => void = () => {};

  /** Attach a transport: events from other processes arrive through it. */
  async attach(transport: Transport, onError?: (e: unknown) => void): Promise<void> {
    this.transport = transport;
    if (onError) this.onError = onError;
    await transport.subscribeEvents((event) => this.dispatch(event));
  }

  on(type: string | '*', handler: EventHandler): () => void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(handler);
    return () => set!.delete(handler);
  }

  async emit(type: string, data: Record<string, unknown>, owner: { user_id: string | null; organization_id: string | null }): Promise<QuireEvent> {
    const event: QuireEvent = {
      id: randomUUID(),
      type,
      timestamp: new Date().toISOString(),
      user_id: owner.user_id,
      organization_id: owner.organization_id,
      data,
    };
    if (this.transport && this.transport.name !== 'inprocess') {
      // the transport's fanout brings it back to this process too, exactly once
      await this.transport.publishEvent(event);
    } else {
      this.dispatch(event);
    }
    return event;
  }

  /**
   * From now until the returned function is called, events that `which` selects reach no handler of this
   * process (an account being erased: no webhook delivery or workflow execution is made for its events).
   */
  mute(which: (event: QuireEvent) => boolean): () => void {
    this.muted.add(which);
    return () => {
      this.muted.delete(which);
    };
  }

  /**
   * Waits for the handlers under way in this process now (of the events `which` selects, all by default) to
   * finish, for at most `timeoutMs` (handlers started later are not waited for: on a busy process there always
   * are some). True when they all finished.
   */
  async settle(which: (event: QuireEvent) => boolean = () => true, timeoutMs = 60_000): Promise<boolean> {
    const running = [...this.inFlight].filter(([, e]) => which(e)).map(([p]) => p);
    if (!running.length) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([Promise.all(running).then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
    clearTimeout(timer);
    return done;
  }

  private dispatch(event: QuireEvent): void {
    for (const m of this.muted) if (m(event)) return;
    for (const key of [event.type, '*']) {
      for (const h of this.handlers.get(key) ?? []) {
        try {
          const r = h(event);
          if (r && typeof (r as Promise<void>).then === 'function') {
            const p: Promise<void> = Promise.resolve(r)
              .catch(this.onError)
              .finally(() => this.inFlight.delete(p));
            this.inFlight.set(p, event);
          }
        } catch (e) {
          this.onError(e);
        }
      }
    }
  }
}
