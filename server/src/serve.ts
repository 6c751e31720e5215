import type { Server } from 'node:http';
import { loadConfig } from '@quire/config';
import type { QuireConfig } from '@quire/config';
import { createApp } from './app.js';
import { createLogger } from '@quire/engine';
import { Engine } from '@quire/engine';
import { describeDatabase, describeQueue, stagesOffHint, stagesStatus } from '@quire/engine';

export interface RunningServer {
  url: string;
  runtime: Engine;
  server: Server;
  close(): Promise<void>;
}

export { hidePassword, describeDatabase, describeQueue, stagesStatus, stagesOffHint } from '@quire/engine';

/** How long a stop waits for requests in flight before it cuts their connections. */
const CLOSE_GRACE_MS = 10_000;

/** Starts the API (and, unless QUIRE_RUN_STAGES=false, the pipeline stages) in this process. */
export async function startServer(config: Readonly<QuireConfig> = loadConfig()): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const runtime = await Engine.create(config, logger, 'server');
  const stages = stagesStatus(config);
  logger.info({ database: describeDatabase(config), queue: describeQueue(config), dataDir: config.dataDir, stages }, 'storage and queue');
  if (config.queue.runStages) await runtime.startStages();
  else logger.warn(stagesOffHint(config)!);
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
  return {
    url,
    runtime,
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // idle keep-alive connections are closed at once; requests in flight get a grace period, then their
      // connections are cut (a connection left half-read, such as an upload answered 413 while it was
      // still being sent, would otherwise hold the stop for the keep-alive time)
      server.closeIdleConnections();
      const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      await closed;
      clearTimeout(cut);
      await runtime.close();
    },
  };
}
