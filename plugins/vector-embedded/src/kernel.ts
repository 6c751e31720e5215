/**
 * Dot products of one query against many rows of a matrix: WebAssembly SIMD kernels (~4-6x faster than
 * scalar JavaScript), with a JavaScript fallback where SIMD is unavailable. The matrix lives in the kernel's
 * own linear memory, which grows as rows are added.
 *
 * Two layouts:
 * - `rows` (f32, and int8 on request): row-major, [query: stride floats][out: OUT_ROWS floats][matrix:
 *   capacity × stride values]; `stride` is the dimension rounded up to a multiple of 8 (f32) or 16 (int8),
 *   the padding zero. Every query reads every value of the rows it scans.
 * - `columns` (int8, the default): dimension-major blocks of BLOCK rows (within a block, every row's
 *   dimension 0, then every row's dimension 1, …), after the query, out, and the query's nonzero dimensions
 *   (their offsets in a block, and their values in pairs over a v128). A query reads only the columns
 *   of its nonzero dimensions: a short query of the hash embedder uses a few dozen of 384 (bench/query-nnz.ts),
 *   so it reads that share of the memory. The integer dot products, and so the scores, are the same as the
 *   row layout's.
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

/** The column kernel: a block's rows [0, rows) (rows a multiple of 16) against the query's nonzero dimensions,
 * taken in pairs (a, b) so that i32x4.dot_i16x8_s does two multiply-adds a lane, as the row kernel does:
 * (func (export "col8") (param $blk i32) (param $idx i32) (param $q i32) (param $pairs i32) (param $rows i32) (param $out i32) (param $list i32) (param $scl i32) (param $thr f32) (result i32)
 *   (local $g i32) (local $kp i32) (local $kend i32) (local $base i32) (local $qp i32)
 *   (local $x v128) (local $y v128) (local $s v128) (local $lo v128) (local $hi v128) (local $a0 … $a3 v128)
 *   g = 0; kend = idx + 8 × pairs
 *   rows: a0..a3 = 0; kp = idx; qp = q; base = blk + g
 *     pairs: s = load(qp)                                  (qa, qb, qa, qb, … as i16)
 *            x = load(base + load_i32(kp)); y = load(base + load_i32(kp + 4))   (columns a and b, 16 rows from g)
 *            lo = shuffle(x, y, 0 16 1 17 … 7 23); hi = shuffle(x, y, 8 24 … 15 31)   (rows' a and b side by side)
 *            a0 += dot_s(extend_low_s(lo), s); a1 += dot_s(extend_high_s(lo), s); a2, a3 likewise from hi
 *            qp += 16; kp += 8; br_if pairs (kp < kend)
 *     out[g..g+16] = a0..a3 (i32); when the most of f32(a0..a3) × scl[g..g+16] (the rows' scores but for the
 *     query's scale) is not ≤ thr: list[count++] = g; g += 16; br_if rows (g < rows)
 *   count
 * (the caller looks only at the 16 rows of the listed g: the others cannot reach its top k.)
 */
function col8Body(): number[] {
  // parameters 0-6, then i32 locals, then v128 locals
  const BLK = 0, IDX = 1, Q = 2, PAIRS = 3, ROWS = 4, OUT = 5, LIST = 6, SCL = 7, THR = 8;
  const G = 9, KP = 10, KEND = 11, BASE = 12, QP = 13, CNT = 14;
  const X = 15, Y = 16, S = 17, LO = 18, HI = 19, A = 20;
  const get = (l: number) => [0x20, l], set = (l: number) => [0x21, l], tee = (l: number) => [0x22, l];
  const load = (offset = 0) => [0xfd, 0x00, 0x04, offset];
  const maxF = [0xfd, 0xe9, 0x01]; // f32x4.max
  const shuffle = (half: number) => [0xfd, 0x0d, ...Array.from({ length: 8 }, (_, i) => [half * 8 + i, 16 + half * 8 + i]).flat()];
  const lanes = (order: number[]) => [0xfd, 0x0d, ...order.flatMap((l) => [l * 4, l * 4 + 1, l * 4 + 2, l * 4 + 3])];
  const b = [
    0x02, 0x40,
    ...get(ROWS), 0x45, 0x0d, 0x00, // rows == 0 → exit
    0x41, 0x00, ...set(G), // g = 0
    ...get(PAIRS), 0x41, 0x03, 0x74, ...get(IDX), 0x6a, ...set(KEND), // kend = idx + (pairs << 3)
    0x03, 0x40, // loop rows
  ];
  for (let j = 0; j < 4; j++) b.push(...V128_ZERO, ...set(A + j));
  b.push(
    ...get(IDX), ...set(KP),
    ...get(Q), ...set(QP),
    ...get(BLK), ...get(G), 0x6a, ...set(BASE), // base = blk + g
    0x02, 0x40, ...get(PAIRS), 0x45, 0x0d, 0x00, // pairs == 0 → none
    0x03, 0x40, // loop pairs
    ...get(QP), ...load(), ...set(S), // s = load(qp)
    ...get(BASE), ...get(KP), 0x28, 0x02, 0x00, 0x6a, ...load(), ...set(X), // x = load(base + load_i32(kp))
    ...get(BASE), ...get(KP), 0x28, 0x02, 0x04, 0x6a, ...load(), ...set(Y), // y = load(base + load_i32(kp + 4))
    ...get(X), ...get(Y), ...shuffle(0), ...set(LO),
    ...get(X), ...get(Y), ...shuffle(1), ...set(HI),
  );
  // a += i32x4.dot_i16x8_s(i16x8.extend_(low|high)_i8x16_s(lo|hi), s)
  [[0, LO, 0x87], [1, LO, 0x88], [2, HI, 0x87], [3, HI, 0x88]].forEach(([j, src, ext]) => b.push(...get(A + j!), ...get(src!), 0xfd, ext!, 0x01, ...get(S), 0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01, ...set(A + j!)));
  b.push(
    ...get(QP), 0x41, 0x10, 0x6a, ...set(QP), // qp += 16
    ...get(KP), 0x41, 0x08, 0x6a, ...tee(KP), ...get(KEND), 0x49, 0x0d, 0x00, // kp += 8; kp < kend → again
    0x0b, 0x0b, // end pairs, block
    ...get(OUT), ...get(G), 0x41, 0x02, 0x74, 0x6a, ...set(BASE), // base = out + (g << 2)
  );
  for (let j = 0; j < 4; j++) b.push(...get(BASE), ...get(A + j), 0xfd, 0x0b, 0x04, j * 16); // store a (i32)
  b.push(...get(SCL), ...get(G), 0x41, 0x02, 0x74, 0x6a, ...set(BASE)); // base = scl + (g << 2)
  // a = f32x4.convert_i32x4_s(a) × the rows' scales
  for (let j = 0; j < 4; j++) b.push(...get(A + j), 0xfd, 0xfa, 0x01, ...get(BASE), ...load(j * 16), 0xfd, 0xe6, 0x01, ...set(A + j));
  b.push(
    // the most of the 16 scaled sums: max(max(a0, a1), max(a2, a3)), its lanes folded twice
    ...get(A), ...get(A + 1), ...maxF, ...get(A + 2), ...get(A + 3), ...maxF, ...maxF, ...tee(X),
    ...get(X), ...get(X), ...lanes([2, 3, 0, 1]), ...maxF, ...tee(X),
    ...get(X), ...get(X), ...lanes([1, 0, 3, 2]), ...maxF, ...set(X),
    0x02, 0x40, ...get(X), 0xfd, 0x1f, 0x00, ...get(THR), 0x5f, 0x0d, 0x00, // lane 0 ≤ thr → not listed
    ...get(LIST), ...get(CNT), 0x41, 0x02, 0x74, 0x6a, ...get(G), 0x36, 0x02, 0x00, // list[count] = g
    ...get(CNT), 0x41, 0x01, 0x6a, ...set(CNT), // count += 1
    0x0b,
    ...get(G), 0x41, 0x10, 0x6a, ...tee(G), ...get(ROWS), 0x49, 0x0d, 0x00, // g += 16; g < rows → again
    0x0b, 0x0b, ...get(CNT), 0x0b,
  );
  return b;
}

const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)];

function kernelBytes(): Uint8Array {
  const fn = (locals: number[], body: number[]) => {
    const b = [...locals, ...body];
    return [...leb(b.length), ...b];
  };
  const f32 = fn([0x02, 0x01, 0x7f, 0x02, 0x7b], f32Body()); // j: i32; a, b: v128
  const i8 = fn([0x03, 0x01, 0x7f, 0x02, 0x7b, 0x01, 0x7f], i8Body()); // j: i32; acc, r: v128; k: i32
  const col8 = fn([0x02, 0x06, 0x7f, 0x09, 0x7b], col8Body()); // g, kp, kend, base, qp, count: i32; x, y, s, lo, hi, a0..a3: v128
  const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];
  const str = (s: string) => [s.length, ...Buffer.from(s, 'utf8')];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x02, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, 0x60, 0x09, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7d, 0x01, 0x7f]),
    ...section(2, [0x01, ...str('env'), ...str('mem'), 0x02, 0x00, 0x01]),
    ...section(3, [0x03, 0x00, 0x00, 0x01]),
    ...section(7, [0x03, ...str('scan'), 0x00, 0x00, ...str('scan8'), 0x00, 0x01, ...str('col8'), 0x00, 0x02]),
    ...section(10, [0x03, ...f32, ...i8, ...col8]),
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
/** rows of a block in the `columns` layout (a power of two: the measured speed fell with other strides) */
export const BLOCK = 4096;
const PAGE = 65536;

/**
 * How rows are held in memory: `f32` (exact, 4 bytes a dimension) or `int8` (1 byte a dimension, a
 * per-row scale; scores are approximate, ~1e-2, and callers rescore the best candidates exactly).
 */
export type Precision = 'f32' | 'int8';

/** How int8 rows are laid out: `columns` (dimension-major blocks, the default) or `rows` (row-major); f32 is always `rows`. */
export type Layout = 'rows' | 'columns';

type ScanFn = (m: number, q: number, out: number, n: number, rowBytes: number) => void;
type ColFn = (blk: number, idx: number, q: number, pairs: number, rows: number, out: number, list: number, scl: number, thr: number) => number;

const pad = (x: number, to: number) => Math.ceil(x / to) * to;

/** A growable matrix of unit vectors with a batched dot-product scan. */
export class VectorMatrix {
  readonly dimension: number;
  readonly precision: Precision;
  readonly layout: Layout;
  /** elements per row in the `rows` layout (dimension rounded up for the kernel; the padding is zero); the int8 query's scale is set by it in both */
  readonly stride: number;
  /** bytes a row takes (`columns`: the dimension) */
  readonly rowBytes: number;
  readonly simd: boolean;
  private readonly memory: WebAssembly.Memory;
  private readonly scanFn: ScanFn | null;
  private readonly colFn: ColFn | null;
  private f32!: Float32Array;
  private i8!: Int8Array;
  private i16!: Int16Array;
  private i32!: Int32Array;
  /** the int8 rows' scales (`columns`: in the kernel's memory, after the blocks, at scalesOff) */
  private scales = new Float32Array(0);
  private scalesOff = 0;
  private qScale = 1;
  /** the loaded (unit) query's L1 norm and nonzero dimensions, for errorBound */
  private qL1 = 0;
  private qNonzero = 0;
  private readonly outOff: number;
  /** `columns`: the query's nonzero dimensions, as byte offsets in a block (i32) and pairs of values repeated 4 times (i16 × 8) */
  private readonly idxOff: number;
  private readonly splatOff: number;
  private nnz = 0;
  /**
   * `columns`: the query's nonzero dimensions, whether the scan reads only some of them (setQuery's `mass`),
   * the others, and the partial sums of the rows scanInto kept (by position)
   */
  private dims: number[] = [];
  private rest: number[] = [];
  private partial = new Int32Array(0);
  pruned = false;
  private queried = false;
  /** `columns`: the kernel's list of the 16-row groups (their first row's offset from the call's first) that may reach the floor, and their count */
  private readonly listOff: number;
  private listed = 0;
  private readonly matOff: number;
  /** `columns`: bytes of a block */
  private readonly blockBytes: number;
  private capacity = 0;

  /** the dimension padded for the kernel: 8 floats or 16 int8 values per step */
  static stride(dimension: number, precision: Precision): number {
    const step = precision === 'f32' ? 8 : 16;
    return Math.ceil(dimension / step) * step;
  }

  /** bytes a row takes in the `rows` layout (the padded dimension, four bytes a value in f32, one in int8) */
  static rowBytes(dimension: number, precision: Precision): number {
    return VectorMatrix.stride(dimension, precision) * (precision === 'f32' ? 4 : 1);
  }

  /** `simd` false: scan in plain JavaScript even where the WebAssembly SIMD kernel runs */
  constructor(dimension: number, precision: Precision = 'int8', initialRows = 1024, simd = true, layout: Layout = 'columns') {
    this.dimension = dimension;
    this.precision = precision;
    this.layout = precision === 'int8' ? layout : 'rows';
    this.stride = VectorMatrix.stride(dimension, precision);
    const cols = this.layout === 'columns';
    this.rowBytes = cols ? dimension : VectorMatrix.rowBytes(dimension, precision);
    this.blockBytes = BLOCK * dimension;
    this.outOff = this.stride * 4; // the query region (f32 or i16) comes first
    this.idxOff = this.outOff + OUT_ROWS * 4;
    this.splatOff = this.idxOff + pad((dimension + 1) * 4, 16);
    this.listOff = this.splatOff + pad(dimension * 16, 16);
    this.matOff = cols ? pad(this.listOff + (BLOCK / 16) * 4, 64) : this.idxOff;
    this.memory = new WebAssembly.Memory({ initial: Math.ceil((this.matOff + this.footprint(initialRows)) / PAGE) });
    const mod = simd ? simdModule() : null;
    this.simd = !!mod;
    if (mod) {
      const exp = new WebAssembly.Instance(mod, { env: { mem: this.memory } }).exports as unknown as { scan: ScanFn; scan8: ScanFn; col8: ColFn };
      this.scanFn = precision === 'f32' ? exp.scan : exp.scan8;
      this.colFn = exp.col8;
    } else {
      this.scanFn = null;
      this.colFn = null;
    }
    this.remap();
  }

  /** bytes the matrix takes for `rows` rows (`columns`: whole blocks) */
  bytesFor(rows: number): number {
    return this.layout === 'columns' ? Math.ceil(rows / BLOCK) * this.blockBytes : rows * this.rowBytes;
  }

  /** bytes of the kernel's memory `rows` rows need (`columns`: whole blocks and their scales) */
  private footprint(rows: number): number {
    return this.layout === 'columns' ? Math.ceil(rows / BLOCK) * (this.blockBytes + BLOCK * 4) : this.bytesFor(rows);
  }

  private remap() {
    const buf = this.memory.buffer;
    this.f32 = new Float32Array(buf);
    this.i8 = new Int8Array(buf);
    this.i16 = new Int16Array(buf);
    this.i32 = new Int32Array(buf);
    const room = buf.byteLength - this.matOff;
    if (this.layout === 'columns') {
      // the scales follow the blocks (the kernel reads them): moved up when the memory has grown
      const blocks = Math.floor(room / (this.blockBytes + BLOCK * 4));
      const off = this.matOff + blocks * this.blockBytes;
      if (this.capacity && off !== this.scalesOff) new Uint8Array(buf).copyWithin(off, this.scalesOff, this.scalesOff + this.capacity * 4);
      this.capacity = blocks * BLOCK;
      this.scalesOff = off;
      this.scales = new Float32Array(buf, off, this.capacity);
      return;
    }
    this.capacity = Math.floor(room / this.rowBytes);
    if (this.precision === 'int8' && this.scales.length < this.capacity) {
      const s = new Float32Array(this.capacity);
      s.set(this.scales);
      this.scales = s;
    }
  }

  /** Bytes held (linear memory with spare capacity, plus the row scales; `columns`: they are in it, plus the pruned scan's partial sums). */
  get bytes(): number {
    return this.memory.buffer.byteLength + (this.layout === 'columns' ? this.partial.byteLength : this.scales.byteLength);
  }

  /** Makes room for `rows` rows in total. */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const want = Math.max(rows, Math.ceil(this.capacity * 1.5));
    const need = this.matOff + this.footprint(want) - this.memory.buffer.byteLength;
    this.memory.grow(Math.ceil(need / PAGE));
    this.remap();
  }

  /** `columns`: the byte of row `pos`'s dimension 0 (dimension d is d × BLOCK further) */
  private colBase(pos: number): number {
    return this.matOff + Math.floor(pos / BLOCK) * this.blockBytes + (pos % BLOCK);
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
    const k = maxAbs > 0 ? 127 / maxAbs : 0;
    this.scales[pos] = maxAbs / 127;
    if (this.layout === 'columns') {
      const base = this.colBase(pos);
      for (let i = 0; i < d; i++) this.i8[base + i * BLOCK] = Math.round((v[i] as number) * inv * k);
      return;
    }
    const base = this.matOff + pos * this.stride;
    for (let i = 0; i < d; i++) this.i8[base + i] = Math.round((v[i] as number) * inv * k);
    this.i8.fill(0, base + d, base + this.stride);
  }

  /**
   * Rows [0, n) as stored (`bytesFor(n)` bytes: int8 or f32 rows, or int8 blocks whose rows from n are zeroed)
   * and their int8 scales: views, valid until the matrix grows.
   */
  raw(n: number): { rows: Uint8Array<ArrayBuffer>; scales: Float32Array<ArrayBuffer> } {
    if (this.layout === 'columns' && n % BLOCK) {
      // (rows past the end may hold rows moved away by a compaction: nothing of them leaves the matrix)
      const base = this.colBase(n);
      for (let i = 0; i < this.dimension; i++) this.i8.fill(0, base + i * BLOCK, base + i * BLOCK + BLOCK - (n % BLOCK));
    }
    return { rows: new Uint8Array(this.memory.buffer, this.matOff, this.bytesFor(n)), scales: this.scales.subarray(0, this.precision === 'int8' ? n : 0) };
  }

  /** Room for rows [0, n) as bytes to fill (e.g. read from a file), valid until the matrix grows; then setRaw. */
  rowsView(n: number): Uint8Array<ArrayBuffer> {
    this.reserve(n);
    return new Uint8Array(this.memory.buffer, this.matOff, this.bytesFor(n));
  }

  /** Sets rows [0, n) from `raw()`'s bytes (unless they are there already: `rowsView`) and scales. */
  setRaw(n: number, rows: Uint8Array, scales: Float32Array): void {
    this.reserve(n);
    const len = this.bytesFor(n);
    if (rows.buffer !== this.memory.buffer || rows.byteOffset !== this.matOff) new Uint8Array(this.memory.buffer, this.matOff, len).set(rows.subarray(0, len));
    if (this.precision === 'int8') this.scales.set(scales.subarray(0, n));
  }

  /** Copies row `from` over row `to` (compaction). */
  move(from: number, to: number): void {
    if (this.precision === 'f32') {
      const s = this.matOff / 4 + from * this.stride;
      this.f32.copyWithin(this.matOff / 4 + to * this.stride, s, s + this.stride);
      return;
    }
    this.scales[to] = this.scales[from]!;
    if (this.layout === 'columns') {
      const s = this.colBase(from), t = this.colBase(to), m = this.i8;
      for (let i = 0; i < this.dimension * BLOCK; i += BLOCK) m[t + i] = m[s + i]!;
      return;
    }
    const s = this.matOff + from * this.stride;
    this.i8.copyWithin(this.matOff + to * this.stride, s, s + this.stride);
  }

  /**
   * Moves every row r of [0, n) with map[r] ≥ 0 to map[r] (a compaction: map[r] ≤ r, increasing): the same
   * as move(r, map[r]) for each, but the columns layout copies dimension by dimension, each column in one
   * forward pass (a row's dimensions are BLOCK bytes apart; moving a row at a time touched one cache line a
   * dimension).
   */
  compact(map: Int32Array, n: number): void {
    if (this.layout !== 'columns') {
      for (let r = 0; r < n; r++) if (map[r]! >= 0 && map[r] !== r) this.move(r, map[r]!);
      return;
    }
    const m = this.i8, sc = this.scales;
    // where each moved row's dimension 0 is, and goes
    const from = new Int32Array(n), to = new Int32Array(n);
    let k = 0;
    for (let r = 0; r < n; r++) {
      const w = map[r]!;
      if (w < 0 || w === r) continue;
      sc[w] = sc[r]!;
      from[k] = this.colBase(r);
      to[k++] = this.colBase(w);
    }
    for (let d = 0, off = 0; d < this.dimension; d++, off += BLOCK) for (let i = 0; i < k; i++) m[to[i]! + off] = m[from[i]! + off]!;
  }

  /**
   * Loads the query (normalised); false for the zero vector. `mass` < 1 (int8 `columns` only): the scan reads
   * only the query's heaviest dimensions (largest |q_d| first) until their squares hold that share of the
   * query's squared norm; its sums are then partial, and `exactScore` completes those of the rows scanInto
   * kept (see `pruned`).
   */
  setQuery(q: ArrayLike<number>, mass = 1): boolean {
    const d = this.dimension;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += (q[i] as number) * (q[i] as number);
    if (!(norm > 0) || !Number.isFinite(norm)) return false;
    this.queried = true;
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
    let l1 = 0, nz = 0;
    for (let i = 0; i < d; i++) {
      const x = Math.abs((q[i] as number) * inv);
      l1 += x;
      if (x > 0) nz++;
    }
    this.qL1 = l1;
    this.qNonzero = nz;
    if (this.layout === 'columns') {
      // the nonzero dimensions, in pairs: where each one's column starts in a block, and the pair's values
      // (a, b) repeated four times for the kernel; an odd one out is paired with a zero
      let nnz = 0;
      const idx = this.idxOff / 4, sp = this.splatOff / 2;
      const dims: number[] = [];
      for (let i = 0; i < d; i++) if (this.i16[i] !== 0) dims.push(i);
      this.dims = dims;
      let read = dims;
      this.rest = [];
      if (mass < 1) {
        // the heaviest dimensions holding `mass` of the squared norm (in dimension order for the kernel)
        const byWeight = [...dims].sort((a, b) => Math.abs(this.i16[b]!) - Math.abs(this.i16[a]!) || a - b);
        let total = 0, sum = 0, m = 0;
        for (const i of dims) total += this.i16[i]! * this.i16[i]!;
        for (; m < byWeight.length && sum < mass * total; m++) sum += this.i16[byWeight[m]!]! ** 2;
        if (m < dims.length) {
          read = byWeight.slice(0, m).sort((a, b) => a - b);
          this.rest = byWeight.slice(m);
          if (this.partial.length < this.capacity) this.partial = new Int32Array(this.capacity);
        }
      }
      this.pruned = read.length < dims.length;
      for (const i of read) {
        const x = this.i16[i]!;
        this.i32[idx + nnz] = i * BLOCK;
        for (let j = 0; j < 4; j++) this.i16[sp + (nnz >> 1) * 8 + 2 * j + (nnz & 1)] = x;
        nnz++;
      }
      if (nnz & 1) {
        this.i32[idx + nnz] = 0;
        for (let j = 0; j < 4; j++) this.i16[sp + (nnz >> 1) * 8 + 2 * j + 1] = 0;
      }
      this.nnz = nnz;
    }
    return true;
  }

  /**
   * The most row `pos`'s score against the loaded query can differ from the exact cosine of the unit vectors
   * (int8: each stored value is within half its row's scale of the true one, each query value within half
   * the query's scale; f32: rounding only). With x̃, q̃ the dequantised row and query:
   * |x·q − x̃·q̃| ≤ |(x − x̃)·q| + |x̃·(q − q̃)| ≤ scale/2 × ‖q‖₁ + qScale/2 × (nonzero q) × 127 × scale.
   */
  errorBound(pos: number): number {
    if (this.precision === 'f32') return 1e-6;
    const sc = this.scales[pos]!;
    return (sc / 2) * this.qL1 + (this.qScale / 2) * this.qNonzero * 127 * sc + 1e-6;
  }

  /**
   * The int8 score of row `pos` over all the query's nonzero dimensions (`columns`, the loaded query
   * `pruned`): what a scan without `mass` gives for it. `pos` is a row the last scanInto kept: its partial
   * sum is completed with the dimensions the scan did not read.
   */
  exactScore(pos: number): number {
    const m = this.i8, q = this.i16, base = this.colBase(pos);
    let s = this.partial[pos]!;
    for (const d of this.rest) s += m[base + d * BLOCK]! * q[d]!;
    return Math.fround(s) * this.scales[pos]! * this.qScale;
  }

  /** How many dimensions of a row the loaded query reads: its nonzero ones (`columns`) or all (`rows`); null before a query. */
  get queryDimensions(): number | null {
    return !this.queried ? null : this.layout === 'columns' ? this.nnz : this.dimension;
  }

  /**
   * Computes the raw scores of rows [a, a + n) (n ≤ OUT_ROWS; `columns`: within one block) into the out region;
   * the score of row a + i is at `out + i` of the index returned (the columns kernel starts at a 16-row boundary).
   */
  private kernel(a: number, n: number, floor = -Infinity): number {
    const out = this.outOff / 4;
    if (this.layout === 'columns') {
      const start = a - (a % BLOCK);
      const g0 = (a - start) & ~15, g1 = Math.min(BLOCK, pad(a + n - start, 16));
      // the floor as a bound of sum × scale, lowered by a margin for the kernel's f32 rounding
      const t = floor / this.qScale, thr = t - Math.abs(t) * 1e-5;
      if (this.colFn) this.listed = this.colFn(this.matOff + (start / BLOCK) * this.blockBytes + g0, this.idxOff, this.splatOff, (this.nnz + 1) >> 1, g1 - g0, this.outOff, this.listOff, this.scalesOff + (start + g0) * 4, thr);
      else this.listed = this.colJs(start + g0, g1 - g0, thr);
      return out + (a - start - g0);
    }
    if (this.scanFn) this.scanFn(this.matOff + a * this.rowBytes, 0, this.outOff, n, this.rowBytes);
    else if (this.precision === 'int8') this.scanJs8(a, n);
    else this.scanJs(a, n);
    return out;
  }

  /** how many rows from `a` (below `to`) one kernel call scores */
  private span(a: number, to: number): number {
    return Math.min(to - a, this.layout === 'columns' ? BLOCK - (a % BLOCK) : OUT_ROWS);
  }

  /**
   * Scores rows [from, to) against the loaded query (cosine; approximate for int8), calling visit(pos, score)
   * for each, in batches through the kernel.
   */
  scan(from: number, to: number, visit: (pos: number, score: number) => void): void {
    const int8 = this.precision === 'int8';
    for (let a = from, n = 0; a < to; a += n) {
      n = this.span(a, to);
      const o = this.kernel(a, n);
      const f = this.f32;
      if (this.layout === 'columns') {
        // (the column kernel's sums are i32; as f32, the row kernel's)
        const sc = this.scales, qs = this.qScale, sums = this.i32;
        for (let i = 0; i < n; i++) visit(a + i, Math.fround(sums[o + i]!) * sc[a + i]! * qs);
      } else if (int8) {
        const sc = this.scales, qs = this.qScale;
        for (let i = 0; i < n; i++) visit(a + i, f[o + i]! * sc[a + i]! * qs);
      } else for (let i = 0; i < n; i++) visit(a + i, f[o + i]!);
    }
  }

  /**
   * Scores rows [from, to) and pushes those `allow` accepts into `top` (the inner loop of every search:
   * no call per row unless it beats the current k-th score).
   */
  scanInto(from: number, to: number, top: TopK, allow: (pos: number) => boolean): void {
    const int8 = this.precision === 'int8';
    const cols = this.layout === 'columns';
    for (let a = from, n = 0; a < to; a += n) {
      n = this.span(a, to);
      let floor = top.floor;
      const o = this.kernel(a, n, floor);
      const f = this.f32, sc = this.scales, qs = this.qScale;
      if (cols) {
        // only the 16-row groups the kernel listed (from its 16-row boundary, o - (a & 15)): in the others no
        // row scores above the floor as it was at the call (it only rises since)
        // (the list and the sums are both i32 views of the kernel's memory)
        const i32 = this.i32, at = this.listOff / 4, first = a - (a & 15), pruned = this.pruned, partial = this.partial;
        for (let i = 0; i < this.listed; i++) {
          const g = first + i32[at + i]!;
          for (let p = Math.max(g, a), end = Math.min(g + 16, a + n); p < end; p++) {
            const sum = i32[o + p - a]!, s = Math.fround(sum) * sc[p]! * qs;
            if (s > floor && allow(p)) {
              if (pruned) partial[p] = sum;
              top.push(s, p);
              floor = top.floor;
            }
          }
        }
        continue;
      }
      for (let i = 0; i < n; i++) {
        const s = int8 ? f[o + i]! * sc[a + i]! * qs : f[o + i]!;
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

  /** the column kernel in JavaScript: rows [a, a + n) of one block, the query's nonzero dimensions only */
  private colJs(a: number, n: number, thr: number): number {
    const m = this.i8, out = this.outOff / 4, base = this.colBase(a);
    const acc = new Int32Array(n);
    for (let k = 0; k < this.nnz; k++) {
      const off = base + this.i32[this.idxOff / 4 + k]!, x = this.i16[this.splatOff / 2 + (k >> 1) * 8 + (k & 1)]!;
      for (let r = 0; r < n; r++) acc[r]! += m[off + r]! * x;
    }
    for (let r = 0; r < n; r++) this.i32[out + r] = acc[r]!;
    let listed = 0;
    for (let g = 0; g < n; g += 16) {
      let most = -Infinity;
      for (let r = g; r < g + 16; r++) most = Math.max(most, Math.fround(acc[r]!) * this.scales[a + r]!);
      if (!(most <= thr)) this.i32[this.listOff / 4 + listed++] = g;
    }
    return listed;
  }
}
