import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@quire/config';
import { startServer } from '@quire/server';
import type { RunningServer } from '@quire/server';

export const MYSQL_URL = process.env.QUIRE_TEST_MYSQL_URL;
export const AMQP_URL = process.env.QUIRE_TEST_AMQP_URL;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface TestServer extends RunningServer {
  key: string;
  dataDir: string;
  /** fetch relative to the server with the bootstrap key (unless headers.authorization is given) */
  api(pathname: string, init?: RequestInit & { json?: unknown; key?: string | null }): Promise<Response>;
  json<T = any>(pathname: string, init?: RequestInit & { json?: unknown; key?: string | null }): Promise<{ status: number; body: T; headers: Headers }>;
}

/**
 * Starts a real Quire server on a free port with a fresh data dir. When QUIRE_TEST_MYSQL_URL /
 * QUIRE_TEST_AMQP_URL are set (CI's second pass), it runs on MariaDB and RabbitMQ, with a database and a
 * queue prefix of its own.
 */
export async function startTestServer(opts: { env?: Record<string, string>; plan?: 'free' | 'standard' | 'premium' } = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-'));
  const port = await freePort();
  const key = `svc_${randomBytes(20).toString('hex')}`;
  const suffix = randomBytes(4).toString('hex');
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    QUIRE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_BOOTSTRAP_API_KEY: key,
    QUIRE_BOOTSTRAP_PLAN: opts.plan ?? 'premium',
    QUIRE_LOG_LEVEL: process.env.QUIRE_TEST_LOG_LEVEL ?? 'silent',
    QUIRE_ALLOWED_HOSTS: '127.0.0.1,localhost',
    QUIRE_PDF_WORKERS: '2',
    QUIRE_OCR_CONCURRENCY: '2',
  };
  let mysqlDb: string | null = null;
  if (MYSQL_URL) {
    const u = new URL(MYSQL_URL);
    mysqlDb = `quire_t_${suffix}`;
    u.pathname = `/${mysqlDb}`;
    env.QUIRE_DB_URL = u.href;
  }
  if (AMQP_URL) {
    env.QUIRE_QUEUE_URL = AMQP_URL;
    env.QUIRE_QUEUE_PREFIX = `quire_t_${suffix}`;
  }
  Object.assign(env, opts.env ?? {});
  const config = loadConfig(env);
  const running = await startServer(config);
  const base = `http://127.0.0.1:${port}`;
  const api: TestServer['api'] = (pathname, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${init.key ?? key}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(base + pathname, { ...init, headers, body });
  };
  return {
    ...running,
    url: base,
    key,
    dataDir,
    api,
    async json(pathname, init) {
      const res = await api(pathname, init);
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: res.status, body, headers: res.headers };
    },
    async close() {
      await running.close();
      if (mysqlDb) await dropMysqlDb(mysqlDb).catch(() => {});
      if (AMQP_URL) await deleteQueues(`quire_t_${suffix}`).catch(() => {});
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function dropMysqlDb(name: string): Promise<void> {
  const mysql = await import('mysql2/promise');
  const u = new URL(MYSQL_URL!);
  const conn = await mysql.createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) });
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await conn.end();
}

async function deleteQueues(prefix: string): Promise<void> {
  const amqp = await import('amqplib');
  const conn = await amqp.connect(AMQP_URL!);
  const ch = await conn.createChannel();
  ch.on('error', () => {});
  for (const q of ['ingest.read', 'ingest.chunk', 'ingest.index', 'parse.fetch', 'parse.read', 'parse.chunk', 'dead']) await ch.deleteQueue(`${prefix}.${q}`).catch(() => {});
  await ch.deleteExchange(`${prefix}.events`).catch(() => {});
  await conn.close().catch(() => {});
}

/** Polls until the document or job reaches completed/failed. */
export async function waitForStatus(s: TestServer, pathname: string, timeoutMs = 120_000, key?: string): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await s.json(pathname, { key });
    if (body?.status === 'completed' || body?.status === 'failed') return body;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pathname}: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export function uploadForm(name: string, bytes: Uint8Array | string, fields: Record<string, string> = {}, type = 'application/octet-stream'): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)], { type }), name);
  return form;
}

export const CORPUS = process.env.QUIRE_CORPUS ?? path.resolve(import.meta.dirname, '../../../shared/corpus');
export const hasCorpus = fs.existsSync(path.join(CORPUS, 'manifest.json'));
