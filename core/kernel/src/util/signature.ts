/**
 * The signature scheme of everything Quire sends out (webhook deliveries, the HTTP integration): HMAC-SHA256
 * with a shared secret over the exact bytes sent, in two headers.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacHex(secret: string, data: string | Buffer): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

export function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The signature header value for a payload: sha256=<hex HMAC-SHA256 of the exact bytes sent>. */
export function signatureHeader(secret: string, payload: string): string {
  return `sha256=${hmacHex(secret, payload)}`;
}

/**
 * The timestamped signature (X-Svc-Signature-V2): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<exact body>">`.
 * The same t is sent in X-Svc-Timestamp. A receiver recomputes v1 from the header's t and the raw body,
 * compares in constant time, and refuses a t too far from its clock (e.g. more than 5 minutes): a captured
 * delivery cannot be replayed later, since changing t breaks v1. Each attempt is signed with its own time.
 */
export function timestampedSignatureHeader(secret: string, payload: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, `${timestamp}.${payload}`)}`;
}

/** The three signature headers of a payload sent at `timestamp` (unix seconds): X-Svc-Signature, X-Svc-Timestamp, X-Svc-Signature-V2. */
export function signatureHeaders(secret: string, payload: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return { 'x-svc-signature': signatureHeader(secret, payload), 'x-svc-timestamp': String(timestamp), 'x-svc-signature-v2': timestampedSignatureHeader(secret, payload, timestamp) };
}

/** Checks an X-Svc-Signature-V2 value (what a receiver does; tolerance in seconds, default 300). */
export function verifyTimestampedSignature(secret: string, payload: string, header: string, opts: { toleranceS?: number; now?: number } = {}): boolean {
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const i = item.indexOf('=');
    if (i > 0) parts.set(item.slice(0, i).trim(), [...(parts.get(item.slice(0, i).trim()) ?? []), item.slice(i + 1).trim()]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t)) return false;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceS ?? 300)) return false;
  const expected = hmacHex(secret, `${t}.${payload}`);
  return (parts.get('v1') ?? []).some((v) => safeEqualHex(v, expected));
}
