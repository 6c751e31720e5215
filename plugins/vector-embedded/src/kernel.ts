/**
 * Dot products of one query against many rows of a row-major Float32 matrix: a WebAssembly SIMD kernel
 * (two f32x4 accumulators; ~4-6x faster than scalar JavaScript), with a JavaScript fallback where SIMD is
 * unavailable. The matrix lives in the kernel's own linear memory, which grows as rows are added.
 *
 * Memory layout: [query: stride floats][out: OUT_ROWS floats][matrix: capacity × stride floats].
 * `stride` is the dimension rounded up to a multiple of 8 (the kernel reads 8 floats per step); the padding is zero.
 */

import type { TopK } from './topk.js';

// The compile target's lib (ES2023, no DOM) declares no WebAssembly types; the few used here (Node has them all):
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  function validate(bytes: Uint8Array): boolean;
}

/** The f32 kernel, hand-assembled:
 * (func (export "scan") (param $m i32) (param $q i32) (param $out i32) (param $n i32) (param $rowBytes i32)
 *   (local $j i32) (local $a v128) (local $b v128)
 *   (block (br_if 0 (i32.eqz (local.get $n)))
 *     (loop $rows
 *       a = b = 0; j = 0
 *       (loop $cols  a += m[j..j+4] * q[j..j+4]; b += m[j+4..j+8] * q[j+4..j+8]; j += 32; br_if $cols (j < rowBytes))
 *       out[0] = hsum(a + b); m += rowBytes; out += 4; n -= 1; br_if $rows n)))
 */
function f32Body(): number[] {
  const load = (local: number, offset: number) => [0x20, local, 0x20, 5, 0x6a, 0xfd, 0x00, 0x04, offset]; // (m|q)+j, v128.load
  return [
    0x02, 0x40, // block
    0x20, 3, 0x45, 0x0d, 0x00, // n == 0 → exit
    0x03, 0x40, // loop rows
    ...V128_ZERO, 0x21, 6,
    ...V128_ZERO, 0x21, 7,
    0x41, 0x00, 0x21, 5, // j = 0
    0x03, 0x40, // loop cols
    0x20, 6, ...load(0, 0), ...load(1, 0), 0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, 0x21, 6, // a += m*q
    0x20, 7, ...load(0, 16), ...load(1, 16), 0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, 0x21, 7, // b += m*q (+16 bytes)
    0x20, 5, 0x41, 0x20, 0x6a, 0x22, 5, // j += 32
    0x20, 4, 0x49, 0x0d, 0x00, // j < rowBytes → again
    0x0b, // end cols
    0x20, 2, // out address
    0x20, 6, 0x20, 7, 0xfd, 0xe4, 0x01, 0x22, 6, 0xfd, 0x1f, 0x00, // (a+b).lane0, a = a+b
    0x20, 6, 0xfd, 0x1f, 0x01, 0x92,
    0x20, 6, 0xfd, 0x1f, 0x02, 0x92,
    0x20, 6, 0xfd, 0x1f, 0x03, 0x92,
    0x38, 0x02, 0x00, // f32.store
    0x20, 0, 0x20, 4, 0x6a, 0x21, 0, // m += rowBytes
    0x20, 2, 0x41, 0x04, 0x6a, 0x21, 2, // out += 4
    0x20, 3, 0x41, 0x01, 0x6b, 0x22, 3, 0x0d, 0x00, // n -= 1; n != 0 → again
    0x0b, 0x0b, 0x0b, // end rows, block, func
  ];
}

/** The int8 kernel: rows are i8 (16 per v128), the query i16 (8 per v128); i32 dot products, stored as f32.
 * (func (export "scan8") (param $m i32) (param $q i32) (param $out i32) (param $n i32) (param $rowBytes i32)
 *   (local $j i32) (local $acc v128) (local $r v128) (local $k i32)
 *   rows: acc = 0; j = 0; k = 0
 *     cols: r = load(m + j); acc += dot_i16x8_s(extend_low_s(r), load(q + k)) + dot_i16x8_s(extend_high_s(r), load(q + k + 16))
 *           j += 16; k += 32; br_if cols (j < rowBytes)
 *     out[0] = f32(sum of acc lanes); m += rowBytes; out += 4; n -= 1; br_if rows n
 */
function i8Body(): number[] {
  return [
    0x02, 0x40,
    0x20, 3, 0x45, 0x0d, 0x00,
    0x03, 0x40, // rows
    ...V128_ZERO, 0x21, 6,
    0x41, 0x00, 0x21, 5, // j = 0
    0x41, 0x00, 0x21, 8, // k = 0
    0x03, 0x40, // cols
    0x20, 0, 0x20, 5, 0x6a, 0xfd, 0x00, 0x04, 0x00, 0x21, 7, // r = load(m + j)
    0x20, 6,
    0x20, 7, 0xfd, 0x87, 0x01, // i16x8.extend_low_i8x16_s
    0x20, 1, 0x20, 8, 0x6a, 0xfd, 0x00, 0x04, 0x00, // load(q + k)
    0xfd, 0xba, 0x01, // i32x4.dot_i16x8_s
    0xfd, 0xae, 0x01, // i32x4.add
    0x20, 7, 0xfd, 0x88, 0x01, // i16x8.extend_high_i8x16_s
    0x20, 1, 0x20, 8, 0x6a, 0xfd, 0x00, 0x04, 0x10, // load(q + k + 16)
    0xfd, 0xba, 0x01,
    0xfd, 0xae, 0x01,
    0x21, 6, // acc = ...
    0x20, 8, 0x41, 0x20, 0x6a, 0x21, 8, // k += 32
    0x20, 5, 0x41, 0x10, 0x6a, 0x22, 5, // j += 16
    0x20, 4, 0x49, 0x0d, 0x00, // j < rowBytes → again
    0x0b,
    0x20, 2,
    0x20, 6, 0xfd, 0x1b, 0x00,
    0x20, 6, 0xfd, 0x1b, 0x01, 0x6a,
    0x20, 6, 0xfd, 0x1b, 0x02, 0x6a,
    0x20, 6, 0xfd, 0x1b, 0x03, 0x6a,
    0xb2, // f32.convert_i32_s
    0x38, 0x02, 0x00,
    0x20, 0, 0x20, 4, 0x6a, 0x21, 0,
    0x20, 2, 0x41, 0x04, 0x6a, 0x21, 2,
    0x20, 3, 0x41, 0x01, 0x6b, 0x22, 3, 0x0d, 0x00,
    0x0b, 0x0b, 0x0b,
  ];
}

const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)];

function kernelBytes(): Uint8Array {
  const fn = (locals: number[], body: number[]) => {
    const b = [...locals, ...body];
    return [...leb(b.length), ...b];
  };
  const f32 = fn([0x02, 0x01, 0x7f, 0x02, 0x7b], f32Body()); // j: i32; a, b: v128
  const i8 = fn([0x03, 0x01, 0x7f, 0x02, 0x7b, 0x01, 0x7f], i8Body()); // j: i32; acc, r: v128; k: i32
  const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];
  const str = (s: string) => [s.length, ...Buffer.from(s, 'utf8')];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]),
    ...section(2, [0x01, ...str('env'), ...str('mem'), 0x02, 0x00, 0x01]),
    ...section(3, [0x02, 0x00, 0x00]),
    ...section(7, [0x02, ...str('scan'), 0x00, 0x00, ...str('scan8'), 0x00, 0x01]),
    ...section(10, [0x02, ...f32, ...i8]),
  ]);
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

let compiled: WebAssembly.Module | null | undefined;
function simdModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      const bytes = kernelBytes();
      compiled = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

export const OUT_ROWS = 4096;
const PAGE = 65536;

/**
 * How rows are held in memory: `f32` (exact, 4 bytes a dimension) or `int8` (1 byte a dimension, a
 * per-row scale; scores are approximate, ~1e-2, and callers rescore the best candidates exactly).
 */
export type Precision = 'f32' | 'int8';

type ScanFn = (m: number, q: number, out: number, n: number, rowBytes: number) => void;

/** A growable matrix of unit vectors with a batched dot-product scan. */
export class VectorMatrix {
  readonly dimension: number;
  readonly precision: Precision;
  /** elements per row (dimension rounded up for the kernel; the padding is zero) */
  readonly stride: number;
  readonly rowBytes: number;
  readonly simd: boolean;
  private readonly memory: WebAssembly.Memory;
  private readonly scanFn: ScanFn | null;
  private f32!: Float32Array;
  private i8!: Int8Array;
  private i16!: Int16Array;
  private scales = new Float32Array(0);
  private qScale = 1;
  private readonly outOff: number;
  private readonly matOff: number;
  private capacity = 0;

  /** the dimension padded for the kernel: 8 floats or 16 int8 values per step */
  static stride(dimension: number, precision: Precision): number {
    const step = precision === 'f32' ? 8 : 16;
    return Math.ceil(dimension / step) * step;
  }

  /** bytes a row takes (the padded dimension, four bytes a value in f32, one in int8) */
  static rowBytes(dimension: number, precision: Precision): number {
    return VectorMatrix.stride(dimension, precision) * (precision === 'f32' ? 4 : 1);
  }

  /** `simd` false: scan in plain JavaScript even where the WebAssembly SIMD kernel runs */
  constructor(dimension: number, precision: Precision = 'int8', initialRows = 1024, simd = true) {
    this.dimension = dimension;
    this.precision = precision;
    this.stride = VectorMatrix.stride(dimension, precision);
    this.rowBytes = VectorMatrix.rowBytes(dimension, precision);
    this.outOff = this.stride * 4; // the query region (f32 or i16) comes first
    this.matOff = this.outOff + OUT_ROWS * 4;
    this.memory = new WebAssembly.Memory({ initial: Math.ceil((this.matOff + initialRows * this.rowBytes) / PAGE) });
    const mod = simd ? simdModule() : null;
    this.simd = !!mod;
    if (mod) {
      const exp = new WebAssembly.Instance(mod, { env: { mem: this.memory } }).exports as unknown as { scan: ScanFn; scan8: ScanFn };
      this.scanFn = precision === 'f32' ? exp.scan : exp.scan8;
    } else this.scanFn = null;
    this.remap();
  }

  private remap() {
    const buf = this.memory.buffer;
    this.f32 = new Float32Array(buf);
    this.i8 = new Int8Array(buf);
    this.i16 = new Int16Array(buf);
    this.capacity = Math.floor((buf.byteLength - this.matOff) / this.rowBytes);
    if (this.precision === 'int8' && this.scales.length < this.capacity) {
      const s = new Float32Array(this.capacity);
      s.set(this.scales);
      this.scales = s;
    }
  }

  /** Bytes held (linear memory with spare capacity, plus the row scales). */
  get bytes(): number {
    return this.memory.buffer.byteLength + this.scales.byteLength;
  }

  /** Makes room for `rows` rows in total. */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const want = Math.max(rows, Math.ceil(this.capacity * 1.5));
    const need = this.matOff + want * this.rowBytes - this.memory.buffer.byteLength;
    this.memory.grow(Math.ceil(need / PAGE));
    this.remap();
  }

  /** Writes row `pos`, L2-normalised (a zero vector stays zero and never scores). */
  set(pos: number, v: ArrayLike<number>): void {
    this.reserve(pos + 1);
    const d = this.dimension;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += (v[i] as number) * (v[i] as number);
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    if (this.precision === 'f32') {
      const base = this.matOff / 4 + pos * this.stride;
      for (let i = 0; i < d; i++) this.f32[base + i] = (v[i] as number) * inv;
      this.f32.fill(0, base + d, base + this.stride);
      return;
    }
    let maxAbs = 0;
    for (let i = 0; i < d; i++) maxAbs = Math.max(maxAbs, Math.abs((v[i] as number) * inv));
    const base = this.matOff + pos * this.stride;
    const k = maxAbs > 0 ? 127 / maxAbs : 0;
    for (let i = 0; i < d; i++) this.i8[base + i] = Math.round((v[i] as number) * inv * k);
    this.i8.fill(0, base + d, base + this.stride);
    this.scales[pos] = maxAbs / 127;
  }

  /** Rows [0, n) as stored (int8 or f32 bytes, `rowBytes` each) and their int8 scales: views, valid until the matrix grows. */
  raw(n: number): { rows: Uint8Array<ArrayBuffer>; scales: Float32Array<ArrayBuffer> } {
    return { rows: new Uint8Array(this.memory.buffer, this.matOff, n * this.rowBytes), scales: this.scales.subarray(0, this.precision === 'int8' ? n : 0) };
  }

  /** Room for rows [0, n) as bytes to fill (e.g. read from a file), valid until the matrix grows; then setRaw. */
  rowsView(n: number): Uint8Array<ArrayBuffer> {
    this.reserve(n);
    return new Uint8Array(this.memory.buffer, this.matOff, n * this.rowBytes);
  }

  /** Sets rows [0, n) from `raw()`'s bytes (unless they are there already: `rowsView`) and scales. */
  setRaw(n: number, rows: Uint8Array, scales: Float32Array): void {
    this.reserve(n);
    if (rows.buffer !== this.memory.buffer || rows.byteOffset !== this.matOff) new Uint8Array(this.memory.buffer, this.matOff, n * this.rowBytes).set(rows.subarray(0, n * this.rowBytes));
    if (this.precision === 'int8') this.scales.set(scales.subarray(0, n));
  }

  /** Copies row `from` over row `to` (compaction). */
  move(from: number, to: number): void {
    if (this.precision === 'f32') {
      const s = this.matOff / 4 + from * this.stride;
      this.f32.copyWithin(this.matOff / 4 + to * this.stride, s, s + this.stride);
    } else {
      const s = this.matOff + from * this.stride;
      this.i8.copyWithin(this.matOff + to * this.stride, s, s + this.stride);
      this.scales[to] = this.scales[from]!;
    }
  }

  /** Loads the query (normalised); false for the zero vector. */
  setQuery(q: ArrayLike<number>): boolean {
    const d = this.dimension;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += (q[i] as number) * (q[i] as number);
    if (!(norm > 0) || !Number.isFinite(norm)) return false;
    const inv = 1 / Math.sqrt(norm);
    if (this.precision === 'f32') {
      for (let i = 0; i < d; i++) this.f32[i] = (q[i] as number) * inv;
      this.f32.fill(0, d, this.stride);
      return true;
    }
    let maxAbs = 0;
    for (let i = 0; i < d; i++) maxAbs = Math.max(maxAbs, Math.abs((q[i] as number) * inv));
    // the i32 accumulator must not overflow: stride × 127 × qmax < 2^31
    const qmax = Math.min(32767, Math.floor(2147483647 / (this.stride * 127)));
    const k = qmax / maxAbs;
    for (let i = 0; i < d; i++) this.i16[i] = Math.round((q[i] as number) * inv * k);
    this.i16.fill(0, d, this.stride);
    this.qScale = maxAbs / qmax;
    return true;
  }

  /**
   * Scores rows [from, to) against the loaded query (cosine; approximate for int8), calling visit(pos, score)
   * for each, in batches of OUT_ROWS through the kernel.
   */
  scan(from: number, to: number, visit: (pos: number, score: number) => void): void {
    const out = this.outOff / 4;
    const int8 = this.precision === 'int8';
    for (let a = from; a < to; a += OUT_ROWS) {
      const n = Math.min(OUT_ROWS, to - a);
      if (this.scanFn) this.scanFn(this.matOff + a * this.rowBytes, 0, this.outOff, n, this.rowBytes);
      else if (int8) this.scanJs8(a, n);
      else this.scanJs(a, n);
      const f = this.f32;
      if (int8) {
        const sc = this.scales, qs = this.qScale;
        for (let i = 0; i < n; i++) visit(a + i, f[out + i]! * sc[a + i]! * qs);
      } else for (let i = 0; i < n; i++) visit(a + i, f[out + i]!);
    }
  }

  /**
   * Scores rows [from, to) and pushes those `allow` accepts into `top` (the inner loop of every search:
   * no call per row unless it beats the current k-th score).
   */
  scanInto(from: number, to: number, top: TopK, allow: (pos: number) => boolean): void {
    const out = this.outOff / 4;
    const int8 = this.precision === 'int8';
    for (let a = from; a < to; a += OUT_ROWS) {
      const n = Math.min(OUT_ROWS, to - a);
      if (this.scanFn) this.scanFn(this.matOff + a * this.rowBytes, 0, this.outOff, n, this.rowBytes);
      else if (int8) this.scanJs8(a, n);
      else this.scanJs(a, n);
      const f = this.f32, sc = this.scales, qs = this.qScale;
      let floor = top.floor;
      for (let i = 0; i < n; i++) {
        const s = int8 ? f[out + i]! * sc[a + i]! * qs : f[out + i]!;
        if (s > floor && allow(a + i)) {
          top.push(s, a + i);
          floor = top.floor;
        }
      }
    }
  }

  private scanJs(a: number, n: number): void {
    const f = this.f32, d = this.stride, out = this.outOff / 4;
    for (let r = 0; r < n; r++) {
      const off = this.matOff / 4 + (a + r) * d;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let j = 0; j < d; j += 4) {
        s0 += f[off + j]! * f[j]!;
        s1 += f[off + j + 1]! * f[j + 1]!;
        s2 += f[off + j + 2]! * f[j + 2]!;
        s3 += f[off + j + 3]! * f[j + 3]!;
      }
      f[out + r] = s0 + s1 + s2 + s3;
    }
  }

  private scanJs8(a: number, n: number): void {
    const m = this.i8, q = this.i16, d = this.stride, out = this.outOff / 4;
    for (let r = 0; r < n; r++) {
      const off = this.matOff + (a + r) * d;
      let s = 0;
      for (let j = 0; j < d; j++) s += m[off + j]! * q[j]!;
      this.f32[out + r] = s;
    }
  }
}
