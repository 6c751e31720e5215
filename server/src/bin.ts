#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '@quire/config';
import { createLogger } from './logger.js';
import { QuireRuntime } from './runtime.js';
import { describeDatabase, describeQueue, stagesOffHint, startServer } from './serve.js';
import { createKey, findOrCreateUser, revokeKey } from './auth/keys.js';

const USAGE = `quire — document processing service

  quire [serve]                          start the API (and pipeline stages unless QUIRE_RUN_STAGES=false)
  quire worker [--stages a.b,c.d]        consume pipeline stages only (scale-out with QUIRE_QUEUE_URL)
  quire keys create --name <n> [--email <e>] [--plan free|standard|premium]
  quire keys list [--email <e>]
  quire keys revoke <key-id>

Configuration comes from QUIRE_* environment variables (see README).`;

async function main(argv: string[]): Promise<number> {
  const [cmd = 'serve', ...rest] = argv;
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
  if (cmd === 'serve') {
    const running = await startServer(config);
    const key = config.auth.bootstrapKey;
    console.log(`Quire is listening on ${running.url} (public URL ${config.publicUrl})`);
    console.log(`  database: ${describeDatabase(config)}`);
    console.log(`  queue: ${describeQueue(config)}`);
    console.log(`  data dir: ${config.dataDir}`);
    console.log(`  ${stagesOffHint(config) ?? 'pipeline stages: run in this process'}`);
    console.log(
      key
        ? `  authenticate with: Authorization: Bearer ${key.slice(0, 8)}… (QUIRE_BOOTSTRAP_API_KEY)`
        : `  create an API key with: npm run keys -- create --name me   (with the same QUIRE_DATA_DIR / QUIRE_DB_URL as this server) then send: Authorization: Bearer <key>`,
    );
    for (const h of await running.runtime.registry.health()) if (!h.ok) console.log(`  not available: ${h.plugin}: ${h.message}`);
    const stop = async () => {
      await running.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return -1;
  }
  if (cmd === 'worker') {
    const { values } = parseArgs({ args: rest, options: { stages: { type: 'string' } } });
    const rt = await QuireRuntime.create(config, createLogger(config.logLevel), 'worker');
    const stages = values.stages?.split(',').map((s) => s.trim()).filter(Boolean);
    await rt.startStages(stages);
    console.log(`Quire worker ${rt.workerId} consuming ${stages?.join(', ') ?? 'every stage'}`);
    console.log(`  database: ${describeDatabase(config)}`);
    console.log(`  queue: ${describeQueue(config)}`);
    console.log(`  data dir: ${config.dataDir}`);
    const stop = async () => {
      await rt.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return -1;
  }
  if (cmd === 'keys') {
    const [sub, ...args] = rest;
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' }, email: { type: 'string' }, plan: { type: 'string' } } });
    const rt = await QuireRuntime.create(config, createLogger('silent'), 'runner');
    // the key works only on a server with the same database: say which one this is (stderr: stdout is the key)
    const from = config.db.url ? 'QUIRE_DB_URL' : process.env.QUIRE_DATA_DIR ? 'QUIRE_DATA_DIR' : 'the default data dir ./data; QUIRE_DATA_DIR changes it';
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
        console.error(USAGE);
        return 2;
      }
      return 0;
    } finally {
      await rt.close();
    }
  }
  console.error(USAGE);
  return cmd === 'help' || cmd === '--help' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e) => {
    console.error(`quire: ${(e as Error).message}`);
    process.exit(1);
  },
);
