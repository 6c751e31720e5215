/**
 * Image headers: pixel size, resolution (DPI) and frames, read without decoding the image.
 * PNG (IHDR, pHYs), JPEG (SOF, JFIF density, EXIF resolution), GIF, BMP, TIFF (every IFD a frame).
 */
export interface ImageFrame {
  width: number;
  height: number;
  /** horizontal / vertical resolution in dots per inch; null when the file does not say */
  dpiX: number | null;
  dpiY: number | null;
}

export interface ImageInfo {
  format: 'png' | 'jpg' | 'gif' | 'bmp' | 'tiff' | 'unknown';
  frames: ImageFrame[];
}

const plausibleDpi = (d: number | null | undefined): number | null => (d && Number.isFinite(d) && d >= 30 && d <= 4800 ? d : null);

export function imageInfo(buf: Buffer): ImageInfo {
  try {
    if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47) return png(buf);
    if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8) return jpeg(buf);
    if (buf.length >= 10 && buf.subarray(0, 3).toString('latin1') === 'GIF') {
      return { format: 'gif', frames: [{ width: buf.readUInt16LE(6), height: buf.readUInt16LE(8), dpiX: null, dpiY: null }] };
    }
    if (buf.length >= 30 && buf[0] === 0x42 && buf[1] === 0x4d) return bmp(buf);
    if (buf.length >= 8 && (buf.subarray(0, 4).equals(Buffer.from([0x49, 0x49, 0x2a, 0])) || buf.subarray(0, 4).equals(Buffer.from([0x4d, 0x4d, 0, 0x2a])))) return tiff(buf);
  } catch {
    // a damaged header: fall through
  }
  return { format: 'unknown', frames: [] };
}

function png(buf: Buffer): ImageInfo {
  if (buf.subarray(12, 16).toString('latin1') !== 'IHDR') return { format: 'png', frames: [] };
  const frame: ImageFrame = { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20), dpiX: null, dpiY: null };
  let p = 8;
  while (p + 12 <= buf.length) {
    const len = buf.readUInt32BE(p);
    const type = buf.subarray(p + 4, p + 8).toString('latin1');
    if (type === 'pHYs' && len >= 9 && buf[p + 16] === 1) {
      frame.dpiX = plausibleDpi(Math.round(buf.readUInt32BE(p + 8) * 0.0254));
      frame.dpiY = plausibleDpi(Math.round(buf.readUInt32BE(p + 12) * 0.0254));
    }
    if (type === 'IDAT' || type === 'IEND') break;
    p += 12 + len;
  }
  return { format: 'png', frames: [frame] };
}

function jpeg(buf: Buffer): ImageInfo {
  const frame: ImageFrame = { width: 0, height: 0, dpiX: null, dpiY: null };
  let p = 2;
  while (p + 4 <= buf.length) {
    if (buf[p] !== 0xff) {
      p++;
      continue;
    }
    const marker = buf[p + 1]!;
    if (marker === 0xff) {
      p++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      p += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break;
    const len = buf.readUInt16BE(p + 2);
    const seg = buf.subarray(p + 4, p + 2 + len);
    if (marker === 0xe0 && seg.subarray(0, 5).toString('latin1') === 'JFIF\0' && seg.length >= 12) {
      const units = seg[7];
      const x = seg.readUInt16BE(8);
      const y = seg.readUInt16BE(10);
      const k = units === 1 ? 1 : units === 2 ? 2.54 : 0;
      if (k && frame.dpiX === null) {
        frame.dpiX = plausibleDpi(x * k);
        frame.dpiY = plausibleDpi(y * k);
      }
    } else if (marker === 0xe1 && seg.subarray(0, 6).toString('latin1') === 'Exif\0\0') {
      const t = seg.subarray(6);
      const ifd = readIfds(t, 1)[0];
      if (ifd && ifd.dpiX) {
        frame.dpiX = ifd.dpiX;
        frame.dpiY = ifd.dpiY;
      }
    } else if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc && seg.length >= 5) {
      frame.height = seg.readUInt16BE(1);
      frame.width = seg.readUInt16BE(3);
      break;
    }
    p += 2 + len;
  }
  return { format: 'jpg', frames: [frame] };
}

function bmp(buf: Buffer): ImageInfo {
  const dib = buf.readUInt32LE(14);
  if (dib === 12) return { format: 'bmp', frames: [{ width: buf.readUInt16LE(18), height: buf.readUInt16LE(20), dpiX: null, dpiY: null }] };
  const width = Math.abs(buf.readInt32LE(18));
  const height = Math.abs(buf.readInt32LE(22));
  const ppmX = buf.length >= 42 ? buf.readInt32LE(38) : 0;
  const ppmY = buf.length >= 46 ? buf.readInt32LE(42) : 0;
  return { format: 'bmp', frames: [{ width, height, dpiX: plausibleDpi(Math.round(ppmX * 0.0254)), dpiY: plausibleDpi(Math.round(ppmY * 0.0254)) }] };
}

function tiff(buf: Buffer): ImageInfo {
  const frames = readIfds(buf, 10000)
    .filter((f) => !f.reduced && f.width > 0 && f.height > 0)
    .map(({ width, height, dpiX, dpiY }) => ({ width, height, dpiX, dpiY }));
  return { format: 'tiff', frames };
}

interface Ifd extends ImageFrame {
  reduced: boolean;
}

/** Walks a TIFF structure (also the one inside EXIF) and returns its IFDs. */
function readIfds(t: Buffer, max: number): Ifd[] {
  if (t.length < 8) return [];
  const le = t[0] === 0x49;
  const u16 = (o: number) => (le ? t.readUInt16LE(o) : t.readUInt16BE(o));
  const u32 = (o: number) => (le ? t.readUInt32LE(o) : t.readUInt32BE(o));
  const out: Ifd[] = [];
  const seen = new Set<number>();
  let off = u32(4);
  while (off > 0 && off + 2 <= t.length && out.length < max && !seen.has(off)) {
    seen.add(off);
    const n = u16(off);
    const f: Ifd = { width: 0, height: 0, dpiX: null, dpiY: null, reduced: false };
    let xres: number | null = null;
    let yres: number | null = null;
    let unit = 2;
    for (let i = 0; i < n; i++) {
      const e = off + 2 + i * 12;
      if (e + 12 > t.length) break;
      const tag = u16(e);
      const type = u16(e + 2);
      const value = () => (type === 3 ? u16(e + 8) : u32(e + 8));
      const rational = () => {
        const at = u32(e + 8);
        if (at + 8 > t.length) return null;
        const den = u32(at + 4);
        return den ? u32(at) / den : null;
      };
      if (tag === 256) f.width = value();
      else if (tag === 257) f.height = value();
      else if (tag === 254) f.reduced = (value() & 1) === 1;
      else if (tag === 282) xres = rational();
      else if (tag === 283) yres = rational();
      else if (tag === 296) unit = value();
    }
    const k = unit === 3 ? 2.54 : unit === 2 ? 1 : 0;
    if (k) {
      f.dpiX = plausibleDpi(xres !== null ? xres * k : null);
      f.dpiY = plausibleDpi(yres !== null ? yres * k : f.dpiX);
    }
    out.push(f);
    const nextAt = off + 2 + n * 12;
    off = nextAt + 4 <= t.length ? u32(nextAt) : 0;
  }
  return out;
}
