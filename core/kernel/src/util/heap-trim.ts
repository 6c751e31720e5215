import v8 from 'node:v8';

/**
 * Gives an isolate's memory back while it waits for work. What a large task allocated stays committed after
 * it: V8 keeps the young generation at the size it grew to (32 MB: two semi-spaces of 16 MB) and the old
 * space's garbage until its next collection, which an idle process never reaches. A parse worker that has
 * read a 1,000-page PDF would sit at that size while the service goes on with the document (its JSON, its
 * chunks in another isolate): the peak of the whole process tree.
 *
 * `due()` says a large task ran (the caller's measure: pages, bytes); `idle()` (nothing left to do) arms a
 * timer if one was due since the last time, and `busy()` (a task arrived) disarms it. When it fires, and only
 * if the heap has grown by `growthMb` since the last time, the heap is collected the way V8 does under
 * memory pressure (the inspector's HeapProfiler.collectGarbage: the low-memory notification, which also
 * shrinks the young generation back to its first size; a plain gc() does not).
 *
 * Not free, so for the end of large work only (the caller's choice): the collection itself is two full
 * compacting collections (about 60 ms each for a parse worker), and the next task starts with a small young
 * generation and low old-space limits, so it collects more often until they have grown again (a parse
 * worker trimmed after every 200-page document did twice the scavenges and spent about a fifth more CPU
 * on the next one). A smaller young generation for good (--max-semi-space-size) would cost every task:
 * 8 MB made a parse worker spend 14 % more CPU on the same document, 4 MB 23 % more.
 */
export function heapTrimmer(opts: { idleMs?: number; growthMb?: number } = {}): { due(): void; busy(): void; idle(): void; readonly trims: number } {
  const idleMs = opts.idleMs ?? 100;
  const growth = (opts.growthMb ?? 16) * 1024 * 1024;
  const heapSize = () => v8.getHeapStatistics().total_heap_size;
  let base = heapSize();
  let timer: NodeJS.Timeout | null = null;
  let session: Promise<{ post(method: string): Promise<unknown> } | null> | null = null;
  let trims = 0;
  let due = false;
  /** counts the tasks that arrived: a trim that waited for the inspector gives way to one */
  let arrivals = 0;
  const trim = async () => {
    timer = null;
    if (heapSize() < base + growth) return;
    const at = arrivals;
    // the in-process inspector (no port is opened); a Node built without it trims nothing
    session ??= import('node:inspector/promises').then(
      ({ Session }) => {
        const s = new Session();
        s.connect();
        return s;
      },
      () => null,
    );
    const s = await session;
    if (!s || at !== arrivals) return;
    await s.post('HeapProfiler.collectGarbage').catch(() => {});
    base = heapSize();
    trims++;
  };
  return {
    due() {
      due = true;
    },
    busy() {
      arrivals++;
      if (timer) clearTimeout(timer);
      timer = null;
    },
    idle() {
      if (!due) return;
      due = false;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void trim(), idleMs);
      // a waiting trim never keeps the process alive
      timer.unref();
    },
    get trims() {
      return trims;
    },
  };
}
