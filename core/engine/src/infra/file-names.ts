const UNSAFE_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb<>:"|?*]/gu;

/**
 * A display name from a user's file name: NFC, base name only (no folder part, no "." or ".."), without
 * control, bidi-override, zero-width or path characters, at most 255 characters. Never used as a path.
 */
export function cleanFileName(name: string | undefined, fallback = 'file'): string {
  const base = (name ?? '').normalize('NFC').split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(UNSAFE_NAME_CHARS, '').replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  const chars = Array.from(cleaned);
  if (chars.length <= 255) return cleaned || fallback;
  // too long: cut the stem, keep the extension (format detection reads it)
  const ext = /\.[^.\s]{1,16}$/u.exec(cleaned)?.[0] ?? '';
  return Array.from(cleaned.slice(0, cleaned.length - ext.length)).slice(0, 255 - Array.from(ext).length).join('').trim() + ext;
}
