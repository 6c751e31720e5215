import type { Server } from 'node:http';
import { loadConfig } from '@quire/config';
import type { QuireConfig } from '@quire/config';
import { createApp } from './app.js';
import { createLogger } from '@quire/engine';
import { Engine } from '@quire/engine';
import { stagesOffHint, startupSummary } from '@quire/engine';

export interface RunningServer {
  url: string;
  runtime: Engine;
  server: Server;
  /** settles when the database and the queue are connected and the stages started (rejects if that failed) */
  ready: Promise<void>;
  close(): Promise<void>;
}

export { hidePassword, describeDatabase, describeQueue, stagesStatus, stagesOffHint } from '@quire/engine';

/** How long a stop waits for requests in flight before it cuts their connections. */
const CLOSE_GRACE_MS = 10_000;

export interface StartOptions {
  /**
   * Resolve once the database and the queue are connected (the default; a failure then rejects). With false,
   * the promise resolves as soon as the server listens: /healthz answers, /readyz says `connecting`, then
   * `ready` or `failed`, and `ready` settles when the connection is made or has failed.
   */
  waitReady?: boolean;
}

/** Starts the API (and, unless QUIRE_RUN_STAGES=false, the pipeline stages) in this process. */
export async function startServer(config: Readonly<QuireConfig> = loadConfig(), opts: StartOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const runtime = Engine.prepare(config, logger, 'server');
  // the server listens before the database and the queue are reached: readiness can be asked while they are
  const app = createApp(runtime);
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.requestTimeout = 0; // large uploads stream for as long as they need; limits are on size
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  logger.info({ listen: url }, 'listening; connecting to the database and the queue (/readyz says connecting until then)');
  const ready = (async () => {
    await runtime.connect();
    if (config.queue.runStages) await runtime.startStages();
    else logger.warn(stagesOffHint(config)!);
    // the start-up line: one structured line with what this process runs on
    logger.info({ startup: await startupSummary(runtime, url) }, 'Quire started');
  })();
  ready.catch((e) => {
    runtime.state = 'failed';
    runtime.failure ??= (e as Error).message;
    if (opts.waitReady === false) logger.error({ err: runtime.failure }, 'cannot start: /readyz reports failed until the process is restarted with a working database and queue');
  });
  const closeServer = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // idle keep-alive connections are closed at once; requests in flight get a grace period, then their
    // connections are cut (a connection left half-read, such as an upload answered 413 while it was
    // still being sent, would otherwise hold the stop for the keep-alive time)
    server.closeIdleConnections();
    const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(cut);
    await runtime.close();
  };
  if (opts.waitReady !== false) {
    try {
      await ready;
    } catch (e) {
      await closeServer().catch(() => {});
      throw e;
    }
  }
  return {
    url,
    runtime,
    server,
    ready,
    close: closeServer,
  };
}
