import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { errors, isQuireError } from '@quire/core';
import { cleanFileName } from './file-names.js';

export interface FetchPolicy {
  allowedHosts: readonly string[];
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
}

/** Addresses of a host name: the system resolver (dns.lookup, as connections use), unless a test replaced it. */
export type HostResolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: HostResolver = (host) => dns.lookup(host, { all: true, verbatim: true });
let resolver: HostResolver = systemResolver;

/**
 * Replaces the resolver of host names (null: back to the system's). For tests, which give names of their own
 * to local servers; production never calls it. Every address it answers is still vetted like a DNS answer.
 */
export function setHostResolver(r: HostResolver | null): void {
  resolver = r ?? systemResolver;
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * True when an address is public unicast (not loopback, private, link-local, unique-local, multicast,
 * reserved...). IPv6 forms that carry an IPv4 address are judged by that address: IPv4-mapped
 * (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) count as the IPv4 address they carry; the deprecated
 * IPv4-compatible form (::a.b.c.d), the local-use NAT64 prefix, 6to4, Teredo and the other special ranges
 * are refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(NAT64_WELL_KNOWN)) ip = ipaddr.fromByteArray(v6.toByteArray().slice(12));
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  return ip.range() === 'unicast';
}

/**
 * A `lookup` for http(s).request that answers the vetted address whatever name is asked (no second DNS
 * query, so no rebinding between the check and the connection). Node calls it either as (host, opts, cb)
 * expecting (err, address, family), or with opts.all (connection family auto-selection, the default since
 * Node 20) expecting (err, [{address, family}]).
 */
export function pinnedLookup(address: string, family: number) {
  return (_host: string, opts: unknown, cb?: (...args: unknown[]) => void) => {
    const callback = (typeof opts === 'function' ? opts : cb) as (...args: unknown[]) => void;
    const all = typeof opts === 'object' && opts !== null && (opts as { all?: boolean }).all === true;
    if (all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
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
      addrs = await resolver(host);
    } catch {
      throw errors.upstream(`Cannot resolve host ${host}`);
    }
  }
  if (!addrs.length) throw errors.upstream(`Cannot resolve host ${host}`);
  if (!allowed) {
    const bad = addrs.find((a) => !isPublicAddress(a.address));
    if (bad) throw errors.validation(`URL host ${host} resolves to a non-public address; refused`, [{ field: 'input', message: 'private, loopback or link-local address' }]);
  }
  const first = addrs[0]!;
  return { url, address: first.address, family: net.isIP(first.address) || first.family };
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
          lookup: pinnedLookup(address, family),
          timeout: policy.timeoutMs,
          headers: { 'user-agent': 'Quire/1.0 (+document fetch)', accept: '*/*' },
        } as http.RequestOptions,
        resolve,
      );
      req.on('timeout', () => req.destroy(errors.upstream(`Fetching ${url.host} timed out`)));
      // the system error's code says what failed (ECONNREFUSED, ECONNRESET, CERT_HAS_EXPIRED...); its message stays out
      req.on('error', (e) => reject(isQuireError(e) ? e : errors.upstream(`Fetching ${url.host} failed (${(e as NodeJS.ErrnoException).code ?? 'connection error'})`)));
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
    const fileName = cleanFileName(dispositionFileName(String(res.headers['content-disposition'] ?? '')) ?? safeDecode(url.pathname.split('/').filter(Boolean).pop() ?? ''), 'download');
    return { stream: out, fileName, contentType: (res.headers['content-type'] as string | undefined) ?? null };
  }
  throw errors.upstream('Too many redirects');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The file name of a Content-Disposition header: filename*= (RFC 5987/6266, UTF-8 or ISO-8859-1) first, else filename=. */
export function dispositionFileName(header: string): string | null {
  const ext = /(?:^|;)\s*filename\*\s*=\s*([^';\s]*)'[^']*'([^;\s]+)/i.exec(header);
  if (ext) {
    const charset = ext[1]!.toLowerCase();
    const raw = ext[2]!.replace(/^"|"$/g, '');
    if (charset === 'utf-8' || charset === '') {
      const v = safeDecode(raw);
      if (v) return v;
    } else if (charset === 'iso-8859-1') {
      return raw.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return headerText(quoted[1]!.replace(/\\(.)/g, '$1'));
  const token = /(?:^|;)\s*filename\s*=\s*([^;\s]+)/i.exec(header);
  return token ? headerText(token[1]!) : null;
}

/** A header value as Node gives it (one char per byte): the UTF-8 text when the bytes are valid UTF-8, else as is (ISO-8859-1). */
function headerText(s: string): string {
  if (!/[\u0080-\u00ff]/.test(s)) return s;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(s, 'latin1'));
  } catch {
    return s;
  }
}
