/**
 * What an integration step sends: a rendered handlebars template (render.ts), to a Slack-style incoming webhook
 * (messaging), an HTTP endpoint (webhook) or by SMTP (email). HTTP goes through the SSRF check of URL inputs
 * (public addresses only unless the host is in QUIRE_ALLOWED_HOSTS; the vetted address is the one connected
 * to; redirects are not followed).
 */
import http from 'node:http';
import https from 'node:https';
import { errors } from '@quire/core';
import type { QuireConfig } from '@quire/config';
import { pinnedLookup, vetUrl } from '../services/url-fetch.js';

export interface SendResult {
  status: number;
  /** the first bytes of the receiver's answer */
  response: string;
}

/** Whether an http: URL may be used (https always; http only for hosts in QUIRE_ALLOWED_HOSTS, e.g. local receivers). */
export function urlAllowed(raw: string, allowedHosts: readonly string[]): boolean {
  const u = new URL(raw);
  if (u.protocol === 'https:') return true;
  if (u.protocol !== 'http:') return false;
  return allowedHosts.some((h) => h === u.hostname || h === u.host);
}

export async function sendHttp(raw: string, opts: { method: string; headers: Record<string, string>; body: string; allowedHosts: readonly string[]; timeoutMs: number; signal?: AbortSignal }): Promise<SendResult> {
  if (!urlAllowed(raw, opts.allowedHosts)) throw errors.validation(`Refused ${raw.split('?')[0]}: only https URLs (or http to hosts in QUIRE_ALLOWED_HOSTS)`);
  const { url, address, family } = await vetUrl(raw, { allowedHosts: opts.allowedHosts });
  const body = Buffer.from(opts.body, 'utf8');
  const result = await new Promise<SendResult>((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        method: opts.method,
        lookup: pinnedLookup(address, family),
        timeout: opts.timeoutMs,
        signal: opts.signal,
        headers: { 'user-agent': 'Quire-Workflows/1.0', ...opts.headers, 'content-length': body.length },
      } as http.RequestOptions,
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (text.length < 2000) text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, response: text.slice(0, 2000) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${Math.round(opts.timeoutMs / 1000)} s`)));
    req.on('error', reject);
    req.end(body);
  });
  if (result.status >= 300 && result.status < 400) throw errors.upstream(`${url.host} answered ${result.status} (a redirect): redirects are not followed`);
  if (result.status < 200 || result.status >= 300) throw errors.upstream(`${url.host} answered HTTP ${result.status}`);
  return result;
}

/** Sends an email over the configured SMTP server; without QUIRE_SMTP_HOST it fails with what to set. */
export async function sendEmail(cfg: QuireConfig['workflows']['smtp'], mail: { to: string | string[]; subject: string; text: string }): Promise<{ message_id: string; accepted: string[] }> {
  if (!cfg.host) throw errors.validation('Email is not configured on this server: set QUIRE_SMTP_HOST (and QUIRE_SMTP_PORT, QUIRE_SMTP_USER, QUIRE_SMTP_PASSWORD, QUIRE_SMTP_FROM) to send workflow emails');
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: cfg.host,
    port: cfg.port,
    secure: cfg.port === 465,
    ...(cfg.user ? { auth: { user: cfg.user, pass: cfg.password ?? '' } } : {}),
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  try {
    const info = await transport.sendMail({ from: cfg.from, to: mail.to, subject: mail.subject, text: mail.text });
    return { message_id: String(info.messageId ?? ''), accepted: (info.accepted ?? []).map(String) };
  } catch (e) {
    throw errors.upstream(`Sending the email failed: ${(e as Error).message}`);
  } finally {
    transport.close();
  }
}
