import pino from 'pino';
import type { Logger } from '@quire/core';

/** Structured JSON logs (pino) on stdout; request lines carry reqId. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { pid: process.pid }, redact: ['req.headers.authorization', 'authorization'] }) as unknown as Logger;
}
