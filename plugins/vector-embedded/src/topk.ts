/** Bounded selection of the k best (score, key) pairs. */
export class TopK {
  protected readonly scores: Float64Array;
  protected readonly keys: Float64Array;
  size = 0;
  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.keys = new Float64Array(k);
  }
  /** the score a candidate must beat once full */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }
  push(score: number, key: number): void {
    const s = this.scores, k = this.keys;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (s[p]! <= score) break;
        s[i] = s[p]!;
        k[i] = k[p]!;
        i = p;
      }
      s[i] = score;
      k[i] = key;
      return;
    }
    if (score <= s[0]!) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i, ms = score;
      if (l < this.size && s[l]! < ms) (m = l), (ms = s[l]!);
      if (r < this.size && s[r]! < ms) (m = r), (ms = s[r]!);
      if (m === i) break;
      s[i] = s[m]!;
      k[i] = k[m]!;
      i = m;
    }
    s[i] = score;
    k[i] = key;
  }
  /** best first */
  sorted(): { key: number; score: number }[] {
    const out: { key: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ key: this.keys[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.key - b.key);
  }
}

/**
 * The k best (score, key) pairs under a total order: higher score first, then lower key. Unlike TopK, the
 * rows kept among equal scores at the k-th place do not depend on the order of the pushes: the lowest keys.
 */
export class RankedTopK extends TopK {
  get full(): boolean {
    return this.size >= this.k;
  }
  /** whether (score, key) would be kept */
  admits(score: number, key: number): boolean {
    return this.size < this.k || score > this.scores[0]! || (score === this.scores[0]! && key < this.keys[0]!);
  }
  override push(score: number, key: number): void {
    const s = this.scores, k = this.keys;
    // worse(a, b): a ranks below b
    const worse = (sa: number, ka: number, sb: number, kb: number) => sa < sb || (sa === sb && ka > kb);
    let i: number;
    if (this.size < this.k) {
      // sift up from the new leaf
      for (i = this.size++; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(score, key, s[p]!, k[p]!)) break;
        s[i] = s[p]!;
        k[i] = k[p]!;
        i = p;
      }
    } else {
      if (!worse(s[0]!, k[0]!, score, key)) return;
      // replace the worst (the root) and sift down
      for (i = 0; ; ) {
        const l = 2 * i + 1, r = l + 1;
        let m = i, ms = score, mk = key;
        if (l < this.size && worse(s[l]!, k[l]!, ms, mk)) (m = l), (ms = s[l]!), (mk = k[l]!);
        if (r < this.size && worse(s[r]!, k[r]!, ms, mk)) (m = r), (ms = s[r]!), (mk = k[r]!);
        if (m === i) break;
        s[i] = s[m]!;
        k[i] = k[m]!;
        i = m;
      }
    }
    s[i] = score;
    k[i] = key;
  }
}
