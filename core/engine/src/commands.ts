/**
 * The commands a process runs without the HTTP host: `quire worker` (consume pipeline stages) and
 * `quire keys` (API keys). `quire-worker` (this package's bin) and the server's `quire` command both call them
 * (the server's bin through the `@quire/engine/commands` entry, which loads the engine only for `worker`).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, unknownVariableWarnings } from '@quire/config';
import type { QuireConfig } from '@quire/config';
import { openStore } from './store-open.js';
import { createLogger } from './logger.js';
import type { Logger } from '@quire/core';
import { describeDatabase, describeQueue, startupSummary } from './status.js';
import { createKey, findOrCreateUser, hashPassword, revokeKey } from './accounts/keys.js';
import { endOtherSessions, normalizeEmail, passwordProblems } from './accounts/sessions.js';

/** Starts a worker: an engine that consumes every stage (or the named `<pipeline>.<stage>` queues) until SIGINT/SIGTERM. */
export async function workerCommand(config: Readonly<QuireConfig>, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { stages: { type: 'string' } } });
  // the engine is loaded by the command that runs it: `quire keys` and `quire users` open the store alone
  const [{ Engine }, { healthPortOf, startHealthPort }] = await Promise.all([import('./engine.js'), import('./health-port.js')]);
  const rt = Engine.prepare(config, createLogger(config.logLevel), 'worker');
  const stages = values.stages?.split(',').map((s) => s.trim()).filter(Boolean);
  // QUIRE_RUN_STAGES=ocr (or another list) chooses the stages when --stages does not
  const listed = Array.isArray(config.queue.runStages);
  // the health port listens before the database and the queue are reached: /readyz says connecting meanwhile
  const port = config.metrics.workerHealthPort;
  const health = port === undefined ? null : await startHealthPort(rt, port, config.host);
  const closeHealth = async () => {
    if (!health) return;
    const closed = new Promise<void>((r) => health.close(() => r()));
    health.closeAllConnections(); // idle keep-alive connections would hold close() open
    await closed;
  };
  let consuming: string[];
  try {
    await rt.connect();
    consuming = await rt.startStages(stages);
  } catch (e) {
    // a worker that cannot connect stops (its supervisor restarts it), with the reason
    await closeHealth();
    await rt.close();
    throw e;
  }
  const healthUrl = health ? `http://${config.host}:${healthPortOf(health)}` : null;
  rt.logger.info({ startup: { ...(await startupSummary(rt, healthUrl)), consuming: stages || listed ? consuming : 'every stage' } }, 'Quire worker started');
  // the lines that supervisors and scripts wait for (worker id and health port), also at log levels above info
  console.log(`Quire worker ${rt.workerId} consuming ${stages || listed ? consuming.join(', ') : 'every stage'}`);
  console.log(`  database: ${describeDatabase(config)}`);
  console.log(`  queue: ${describeQueue(config)}`);
  console.log(`  data dir: ${config.dataDir}`);
  if (healthUrl) console.log(`  health: ${healthUrl} (/healthz, /readyz, /metrics)`);
  return stopOnSignal(async () => {
    await closeHealth();
    await rt.close();
  }, rt.logger);
}

/** Closes with `close` and exits 0 on SIGINT or SIGTERM; returns -1 (keep running) for runMain. */
export function stopOnSignal(close: () => Promise<void>, logger?: Logger): number {
  const stop = async (signal: NodeJS.Signals) => {
    const started = Date.now();
    logger?.info({ signal }, 'stopping: running stages go back to the queue');
    await close();
    logger?.info({ signal, ms: Date.now() - started }, 'stopped cleanly');
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

export const KEYS_USAGE = `  quire keys create --name <n> [--email <e>] [--plan free|standard|premium]
  quire keys list [--email <e>]
  quire keys revoke <key-id>`;

/** `quire keys create|list|revoke`; the key is printed on stdout, everything else on stderr. */
export async function keysCommand(config: Readonly<QuireConfig>, rest: string[]): Promise<number> {
  const [sub, ...args] = rest;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' }, email: { type: 'string' }, plan: { type: 'string' } } });
  const rt = await openStore(config, createLogger('silent'));
  // the key works only on a server with the same database: say which one this is (stderr: stdout is the key)
  const from = config.db.url ? 'QUIRE_DB_URL' : 'QUIRE_DATA_DIR';
  console.error(`database: ${describeDatabase(config)} (${from})`);
  try {
    if (sub === 'create') {
      if (!values.name) throw new Error('--name is required');
      const plan = (values.plan ?? 'premium') as 'free' | 'standard' | 'premium';
      if (!['free', 'standard', 'premium'].includes(plan)) throw new Error('--plan must be free, standard or premium');
      const user = await findOrCreateUser(rt.store, values.email ?? 'admin@quire.local', plan);
      const { key, record } = await createKey(rt.store, user.id, values.name);
      console.log(key);
      console.error(`created key ${record.id} (${record.name}) for ${user.email}, plan ${user.plan}. It is shown only once.`);
      console.error(`It is accepted by servers that use this database: ${describeDatabase(config)}`);
    } else if (sub === 'list') {
      const users = values.email ? [await rt.store.repo('users').findOne({ email: values.email })].filter((u) => !!u) : await rt.store.repo('users').find();
      for (const u of users) for (const k of await rt.store.repo('api_keys').find({ user_id: u!.id })) console.log(`${k.id}\t${k.prefix}…\t${k.name}\t${u!.email}\t${k.revoked_at ? 'revoked' : 'active'}`);
    } else if (sub === 'revoke') {
      const id = positionals[0];
      if (!id) throw new Error('usage: quire keys revoke <key-id>');
      console.log((await revokeKey(rt.store, id)) ? `revoked ${id}` : `no active key ${id}`);
    } else {
      console.error(KEYS_USAGE);
      return 2;
    }
    return 0;
  } finally {
    await rt.close();
  }
}

export const USERS_USAGE = `  quire users set-password --email <e>   (the password is read from stdin, never from the command line)`;

/** The first line of stdin (a password piped or typed in). */
async function readLine(): Promise<string> {
  let data = '';
  for await (const chunk of process.stdin) {
    data += chunk;
    if (data.includes('\n')) break;
  }
  return data.split(/\r?\n/)[0] ?? '';
}

/**
 * `quire users set-password --email <e>`: gives a user (the bootstrap admin, a user made by `keys create`) a
 * password to log in to the dashboard with; the user's sessions end. The password follows the sign-up rules.
 */
export async function usersCommand(config: Readonly<QuireConfig>, rest: string[]): Promise<number> {
  const [sub, ...args] = rest;
  const { values } = parseArgs({ args, options: { email: { type: 'string' } } });
  if (sub !== 'set-password' || !values.email) {
    console.error(USERS_USAGE);
    return 2;
  }
  const password = await readLine();
  const missing = passwordProblems(password);
  if (missing.length) {
    console.error(`the password needs ${missing.join(', ')}`);
    return 2;
  }
  const rt = await openStore(config, createLogger('silent'));
  try {
    const user = await rt.store.repo('users').findOne({ email: normalizeEmail(values.email) });
    if (!user) {
      console.error(`no user ${values.email} in ${describeDatabase(config)}`);
      return 1;
    }
    await rt.store.repo('users').update(user.id, { password_hash: await hashPassword(password), updated_at: new Date() });
    const ended = await endOtherSessions(rt.store, user.id, null);
    console.error(`password set for ${user.email}${ended ? `; ${ended} session(s) ended` : ''}`);
    return 0;
  } finally {
    await rt.close();
  }
}

/**
 * Runs a command's main with the loaded config and exits with its code (-1: keep running, e.g. a worker); an
 * invalid configuration is said on stderr with exit code 2.
 */
export function runMain(name: string, main: (config: Readonly<QuireConfig>) => Promise<number>): void {
  const withConfig = async () => {
    let config;
    try {
      config = loadConfig();
    } catch (e) {
      if (e instanceof ConfigError) {
        console.error(e.message);
        return 2;
      }
      throw e;
    }
    // on stderr: a command's output (a key, JSON) stays clean
    for (const w of unknownVariableWarnings()) console.error(`${name}: warning: ${w}`);
    return main(config);
  };
  withConfig().then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (e) => {
      console.error(`${name}: ${(e as Error).message}`);
      process.exit(1);
    },
  );
}
