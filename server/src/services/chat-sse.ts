import { PassThrough } from 'node:stream';
import type { AppContext } from '../http/context.js';

export interface SseStream {
  /** aborted when the client goes away before the stream ends */
  signal: AbortSignal;
  /** writes one event: `event: <name>` (when given) and `data: <json or text>` */
  send(data: unknown, event?: string): void;
  end(): void;
  readonly closed: boolean;
}

/**
 * Turns the response into a Server-Sent Events stream (status 200, no buffering). The route returns
 * undefined after calling this; errors after this point are sent as events by the caller.
 */
export function openSse(ctx: AppContext): SseStream {
  const body = new PassThrough();
  const controller = new AbortController();
  let ended = false;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set('Content-Type', 'text/event-stream; charset=utf-8');
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('Connection', 'keep-alive');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = body;
  ctx.res.on('close', () => {
    if (!ended) controller.abort(Object.assign(new Error('Client closed the stream'), { name: 'AbortError' }));
    ended = true;
  });
  return {
    signal: controller.signal,
    send(data, event) {
      if (ended) return;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      body.write(`${event ? `event: ${event}\n` : ''}data: ${text}\n\n`);
    },
    end() {
      if (ended) return;
      ended = true;
      body.end();
    },
    get closed() {
      return ended;
    },
  };
}
