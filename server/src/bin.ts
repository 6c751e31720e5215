#!/usr/bin/env node
import type { QuireConfig } from '@quire/config';
// the commands alone: `quire keys` and `quire users` open the store without loading the engine or the HTTP host
import { KEYS_USAGE, USERS_USAGE, keysCommand, runMain, stopOnSignal, usersCommand, workerCommand } from '@quire/engine/commands';

const USAGE = `quire — document processing service

  quire [serve]                          start the API (and pipeline stages unless QUIRE_RUN_STAGES=false)
  quire worker [--stages a.b,c.d]        consume pipeline stages only (scale-out with QUIRE_QUEUE_URL)
${KEYS_USAGE}
${USERS_USAGE}

Configuration comes from QUIRE_* environment variables (see README).`;

async function main(config: Readonly<QuireConfig>, argv: string[]): Promise<number> {
  const [cmd = 'serve', ...rest] = argv;
  if (cmd === 'serve') {
    // the HTTP host is loaded only to serve
    const [{ startServer }, { describeDatabase, describeQueue, stagesOffHint }] = await Promise.all([import('./serve.js'), import('@quire/engine')]);
    // listens at once; /readyz says connecting until the database and the queue answer, then ready or failed
    const running = await startServer(config, { waitReady: false });
    // the start-up line is a structured log line (serve.ts); people at a terminal also get it in words
    if (process.stdout.isTTY) {
      running.ready.then(
        async () => {
          const key = config.auth.bootstrapKey;
          console.log(`Quire is listening on ${running.url} (public URL ${config.publicUrl})`);
          console.log(`  database: ${describeDatabase(config)}`);
          console.log(`  queue: ${describeQueue(config)}`);
          console.log(`  data dir: ${config.dataDir}`);
          console.log(`  studio (web dashboard): ${config.publicUrl}/studio${config.accounts.signup ? ' (create an account there)' : ''}`);
          console.log(`  ${stagesOffHint(config) ?? 'pipeline stages: run in this process'}`);
          console.log(
            key
              ? `  authenticate with: Authorization: Bearer ${key.slice(0, 8)}… (QUIRE_BOOTSTRAP_API_KEY)`
              : `  create an API key with: npm run -s keys -- create --name me   (with the same QUIRE_DATA_DIR / QUIRE_DB_URL as this server) then send: Authorization: Bearer <key>`,
          );
          for (const h of await running.runtime.registry.health()) if (!h.ok) console.log(`  not available: ${h.plugin}: ${h.message}`);
        },
        (e) => console.log(`Quire could not start: ${(e as Error).message} (/readyz on ${running.url} says so until it is restarted)`),
      );
    }
    return stopOnSignal(() => running.close(), running.runtime.logger);
  }
  // worker and keys need no HTTP host: they run on the engine alone
  if (cmd === 'worker') return workerCommand(config, rest);
  if (cmd === 'keys') return keysCommand(config, rest);
  if (cmd === 'users') return usersCommand(config, rest);
  console.error(USAGE);
  return cmd === 'help' || cmd === '--help' ? 0 : 2;
}

runMain('quire', (config) => main(config, process.argv.slice(2)));
