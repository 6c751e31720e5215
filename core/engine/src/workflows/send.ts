/**
 * The host's outbound HTTP, given to plugins as ctx.http (integration plugins send with it): https, or http to
 * hosts in QUIRE_ALLOWED_HOSTS; the SSRF check of URL inputs (public addresses only unless the host is allowed;
 * the vetted address is the one connected to); redirects are not followed; a time limit.
 */
import http from 'node:http';
import https from 'node:https';
import { errors } from '@quire/core';
import type { HttpClient, OutboundResponse } from '@quire/core';
import { pinnedLookup, vetUrl } from '../infra/url-fetch.js';

/** the first bytes of an answer a plugin gets */
const ANSWER_CAP = 64 * 1024;

/** Whether an http: URL may be used (https always; http only for hosts in QUIRE_ALLOWED_HOSTS, e.g. local receivers). */
export function urlAllowed(raw: string, allowedHosts: readonly string[]): boolean {
  const u = new URL(raw);
  if (u.protocol === 'https:') return true;
  if (u.protocol !== 'http:') return false;
  return allowedHosts.some((h) => h === u.hostname || h === u.host);
}

/** An HttpClient that applies the network policy: allowed hosts, vetted addresses, no redirects, `timeoutMs` at most. */
export function outboundHttp(policy: { allowedHosts: readonly string[]; timeoutMs: number; userAgent?: string }): HttpClient {
  return async (raw, req = {}) => {
    if (!urlAllowed(raw, policy.allowedHosts)) throw errors.validation(`Refused ${raw.split('?')[0]}: only https URLs (or http to hosts in QUIRE_ALLOWED_HOSTS)`);
    const { url, address, family } = await vetUrl(raw, { allowedHosts: policy.allowedHosts });
    const body = req.body === undefined ? undefined : typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : req.body;
    const timeoutMs = Math.min(req.timeoutMs ?? policy.timeoutMs, policy.timeoutMs);
    return new Promise<OutboundResponse>((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const r = mod.request(
        url,
        {
          method: req.method ?? (body ? 'POST' : 'GET'),
          lookup: pinnedLookup(address, family),
          timeout: timeoutMs,
          signal: req.signal,
          headers: { 'user-agent': policy.userAgent ?? 'Quire/1.0', ...req.headers, ...(body ? { 'content-length': body.length } : {}) },
        } as http.RequestOptions,
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            if (text.length < ANSWER_CAP) text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text.slice(0, ANSWER_CAP) }));
          res.on('error', reject);
        },
      );
      r.on('timeout', () => r.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)));
      r.on('error', reject);
      r.end(body);
    });
  };
}
