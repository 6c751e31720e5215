/**
 * PDFium (WebAssembly, @embedpdf/pdfium) for the parse workers: one instance per worker, a scratch area for
 * out-parameters, views of the WASM memory that follow its growth, and the page-to-view transform.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { init } from '@embedpdf/pdfium';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';

export type Pdfium = WrappedPdfiumModule;

const require = createRequire(import.meta.url);

/** The instance of this process, with its scratch area (out-parameters of one call at a time). */
export interface Engine {
  m: Pdfium;
  /**
   * The same functions as the module's own exports, called directly: no argument conversion, no name
   * look-up, no checks (the wrapped calls cost a fifth of a page's time in the per-character loops). For
   * functions of numbers only; a boolean comes back as 0 or 1.
   */
  fast: Omit<Pdfium, 'pdfium'>;
  /** 256 bytes of WASM memory for out-parameters */
  scratch: number;
  u8(): Uint8Array;
  i32(): Int32Array;
  u32(): Uint32Array;
  f32(): Float32Array;
  f64(): Float64Array;
  malloc(n: number): number;
  free(p: number): void;
  /** an allocation was refused at the memory cap since the last reset */
  memoryLimitHit(reset?: boolean): boolean;
  /** PDFium aborted: the instance cannot be used again */
  aborted(): boolean;
}

interface WasmApi {
  instantiate(bytes: Uint8Array, imports: unknown): Promise<{ instance: unknown; module: unknown }>;
}

/**
 * Starts PDFium. `maxMb`: the most its WebAssembly memory may grow to (the heap limit of the process does
 * not cover it): past it an allocation fails, as it would on a machine out of memory, and `memoryLimitHit`
 * says so (a flate bomb decoded into a content stream, an image of huge dimensions).
 */
export async function startEngine(opts: { maxMb?: number; debug?: boolean } = {}): Promise<Engine> {
  const wasmBinary = fs.readFileSync(require.resolve('@embedpdf/pdfium/pdfium.wasm'));
  const cap = opts.maxMb ? opts.maxMb * 1024 * 1024 : Infinity;
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const state = { hit: false, aborted: false };
  const m = await init({
    wasmBinary,
    // an abort (PDFium out of memory, a failed check) leaves the instance unusable
    onAbort: () => {
      state.aborted = true;
    },
    // PDFium's own messages (an abort's reason) only when asked for
    printErr: (s: string) => {
      if (opts.debug) console.error(`[pdfium] ${s}`);
    },
    // the memory's growth goes through emscripten_resize_heap (an import): refused past the cap
    instantiateWasm(info: { env: Record<string, unknown> }, receive: (instance: unknown, module: unknown) => unknown) {
      const grow = info.env.emscripten_resize_heap as ((size: number) => boolean) | undefined;
      if (grow && Number.isFinite(cap)) {
        info.env.emscripten_resize_heap = (size: number) => {
          if (size >>> 0 > cap) {
            state.hit = true;
            return false;
          }
          return grow(size);
        };
      }
      wasm.instantiate(wasmBinary, info).then(({ instance, module }) => receive(instance, module));
      return {};
    },
  } as unknown as Parameters<typeof init>[0]);
  m.PDFiumExt_Init();
  const { malloc, free } = m.pdfium.wasmExports;
  let buffer: ArrayBufferLike | null = null;
  let u8!: Uint8Array, i32!: Int32Array, u32!: Uint32Array, f32!: Float32Array, f64!: Float64Array;
  // the memory grows (a new buffer) when PDFium allocates: views are made again when it has
  const fresh = () => {
    const heap = (m.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8;
    if (heap.buffer !== buffer) {
      buffer = heap.buffer;
      u8 = heap;
      i32 = new Int32Array(buffer);
      u32 = new Uint32Array(buffer);
      f32 = new Float32Array(buffer);
      f64 = new Float64Array(buffer);
    }
  };
  const scratch = malloc(256);
  return {
    m,
    fast: m.pdfium.wasmExports as unknown as Omit<Pdfium, 'pdfium'>,
    scratch,
    u8: () => (fresh(), u8),
    i32: () => (fresh(), i32),
    u32: () => (fresh(), u32),
    f32: () => (fresh(), f32),
    f64: () => (fresh(), f64),
    malloc,
    free,
    aborted: () => state.aborted,
    memoryLimitHit: (reset = false) => {
      const hit = state.hit;
      if (reset) state.hit = false;
      return hit;
    },
  };
}

/** An affine transform [a, b, c, d, e, f]: (x, y) → (a x + c y + e, b x + d y + f). */
export type Matrix = [number, number, number, number, number, number];

/** The point (x, y) through the transform v. */
export const apply = (v: Matrix, x: number, y: number): [number, number] => [v[0] * x + v[2] * y + v[4], v[1] * x + v[3] * y + v[5]];

export const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];

/**
 * PDF user space → the page's view (points, top-left origin, the page's /Rotate applied, its crop box's
 * offset taken off), from FPDF_PageToDevice on three points at a scale where its whole-pixel rounding
 * does not matter.
 */
export function viewMatrix(e: Engine, page: number, width: number, height: number): Matrix {
  const S = 1000;
  const W = Math.max(1, Math.round(width * S)), H = Math.max(1, Math.round(height * S));
  const at = (x: number, y: number): [number, number] => {
    e.m.FPDF_PageToDevice(page, 0, 0, W, H, 0, x, y, e.scratch, e.scratch + 4);
    const i = e.i32();
    return [i[e.scratch >> 2]! / S, i[(e.scratch >> 2) + 1]! / S];
  };
  const D = 1000;
  const o = at(0, 0), px = at(D, 0), py = at(0, D);
  const r = (v: number) => Math.round(v * 1e6) / 1e6;
  return [r((px[0] - o[0]) / D), r((px[1] - o[1]) / D), r((py[0] - o[0]) / D), r((py[1] - o[1]) / D), o[0], o[1]];
}

/**
 * A UTF-16LE string from a PDFium getter asked twice: for the size in bytes (with the terminator), then the
 * text; at most `max` bytes are read.
 */
export function utf16(m: Pdfium, get: (buf: number, len: number) => number, max = 1 << 16): string {
  const n = get(0, 0);
  if (!(n > 2)) return '';
  const len = Math.min(n, max);
  const { malloc, free } = m.pdfium.wasmExports;
  const buf = malloc(len);
  if (!buf) return '';
  try {
    const got = get(buf, len);
    return got > 2 ? m.pdfium.UTF16ToString(buf, Math.min(len, got)) : '';
  } finally {
    free(buf);
  }
}

/** A UTF-8 string from a getter asked twice (size in bytes with the terminator, then the text). */
export function utf8(e: Engine, get: (buf: number, len: number) => number, max = 4096): string {
  const n = get(0, 0);
  if (!(n > 1)) return '';
  const len = Math.min(n, max);
  const buf = e.malloc(len);
  if (!buf) return '';
  try {
    get(buf, len);
    return e.m.pdfium.UTF8ToString(buf, len);
  } finally {
    e.free(buf);
  }
}
