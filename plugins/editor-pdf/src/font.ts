// The Unicode font values are drawn in; apart from acroform.ts (pdf-lib), so that the plugin's health check
// does not load pdf-lib in the service (only the isolates that read and fill files need it).
import fs from 'node:fs';

export const DEFAULT_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

let fontCache: { path: string; bytes: Buffer | null } | null = null;

/** The bytes of the Unicode font (DejaVu Sans by default), or null when it is not installed. */
export function unicodeFont(path = DEFAULT_FONT): Buffer | null {
  if (fontCache?.path === path) return fontCache.bytes;
  let bytes: Buffer | null = null;
  try {
    bytes = fs.readFileSync(path);
  } catch {
    bytes = null;
  }
  fontCache = { path, bytes };
  return bytes;
}
