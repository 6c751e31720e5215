import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { errors } from '@quire/core';

export interface FetchPolicy {
  allowedHosts: readonly string[];
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
}

/** True when an address is public unicast (not loopback, private, link-local, unique-local, multicast, reserved...). */
export function isPublicAddress(address: string): boolean {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === 'unicast';
}

function hostAllowed(url: URL, allowed: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return allowed.some((a) => {
    const x = a.toLowerCase();
    return x === host || x === `${host}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  });
}

/** Resolves the host and vets every address; returns the address to connect to (pinned: no DNS rebinding). */
export async function vetUrl(raw: string, policy: Pick<FetchPolicy, 'allowedHosts'>): Promise<{ url: URL; address: string; family: number }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw errors.validation('input must be an http(s) URL or an svc:// reference', [{ field: 'input', message: 'not a URL' }]);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.validation('Only http and https URLs are accepted', [{ field: 'input', message: `scheme ${url.protocol} not allowed` }]);
  if (url.username || url.password) throw errors.validation('URLs with credentials are not accepted', [{ field: 'input', message: 'credentials in URL' }]);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = hostAllowed(url, policy.allowedHosts);
  let addrs: { address: string; family: number }[];
  if (net.isIP(host)) addrs = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addrs = await dns.lookup(host, { all: true, verbatim: true });
    } catch {
      throw errors.upstream(`Cannot resolve host ${host}`);
    }
  }
  if (!addrs.length) throw errors.upstream(`Cannot resolve host ${host}`);
  if (!allowed) {
    const bad = addrs.find((a) => !isPublicAddress(a.address));
    if (bad) throw errors.validation(`URL host ${host} resolves to a non-public address; refused`, [{ field: 'input', message: 'private, loopback or link-local address' }]);
  }
  return { url, address: addrs[0]!.address, family: addrs[0]!.family };
}

/**
 * Fetches a URL with SSRF protection (public addresses only unless allow-listed; the vetted address is the
 * one connected to; redirects re-vetted), a time limit and a size limit enforced while streaming.
 * Returns the body stream and the file name suggested by the URL/headers.
 */
export async function fetchUrl(raw: string, policy: FetchPolicy): Promise<{ stream: NodeJS.ReadableStream; fileName: string; contentType: string | null }> {
  let current = raw;
  for (let hop = 0; hop <= (policy.maxRedirects ?? 5); hop++) {
    const { url, address, family } = await vetUrl(current, policy);
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.get(
        url,
        {
          lookup: (_h: string, _o: unknown, cb: (e: Error | null, a: string, f: number) => void) => cb(null, address, family),
          timeout: policy.timeoutMs,
          headers: { 'user-agent': 'Quire/1.0 (+document fetch)', accept: '*/*' },
        } as http.RequestOptions,
        resolve,
      );
      req.on('timeout', () => req.destroy(errors.upstream(`Fetching ${url.host} timed out`)));
      req.on('error', (e) => reject(e instanceof Error && 'code' in e && (e as any).code === 'UPSTREAM_ERROR' ? e : errors.upstream(`Fetching ${url.host} failed: ${(e as Error).message}`)));
    });
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
      res.resume();
      current = new URL(res.headers.location, url).href;
      continue;
    }
    if (!res.statusCode || res.statusCode >= 400) {
      res.resume();
      throw errors.upstream(`Fetching the URL returned HTTP ${res.statusCode}`);
    }
    const declared = Number(res.headers['content-length'] ?? 0);
    if (declared > policy.maxBytes) {
      res.destroy();
      throw errors.tooLarge(policy.maxBytes);
    }
    // overall deadline while streaming the body
    const out = new PassThrough();
    const timer = setTimeout(() => res.destroy(errors.upstream('Fetching the URL timed out')), policy.timeoutMs);
    res.on('error', (e) => out.destroy(e));
    res.on('end', () => clearTimeout(timer));
    res.on('close', () => clearTimeout(timer));
    res.pipe(out);
    const cd = String(res.headers['content-disposition'] ?? '');
    const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(cd);
    const fromPath = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? '');
    return { stream: out, fileName: (m?.[1] ?? fromPath) || 'download', contentType: (res.headers['content-type'] as string | undefined) ?? null };
  }
  throw errors.upstream('Too many redirects');
}
