/** Blank pages: pixels of a rendered page, and the note that lists the blank pages of a document. */

/**
 * Whether rendered pixels are blank: nearly all of them (all but 1 in 20,000 of a regular sample) within
 * a small distance of the commonest grey level (the paper). A blank scan's specks stay below that; one
 * printed character does not.
 */
export function uniformPixels(data: Uint8ClampedArray | Uint8Array, width: number, height: number): boolean {
  const step = Math.max(1, Math.floor(Math.sqrt((width * height) / 1_000_000)));
  const hist = new Uint32Array(256);
  let n = 0;
  const lum = (o: number) => (data[o]! * 3 + data[o + 1]! * 6 + data[o + 2]!) / 10;
  for (let y = 0; y < height; y += step) for (let x = 0; x < width; x += step) {
    hist[Math.round(lum((y * width + x) * 4))]!++;
    n++;
  }
  let mode = 0;
  for (let v = 1; v < 256; v++) if (hist[v]! > hist[mode]!) mode = v;
  let off = 0;
  for (let v = 0; v < 256; v++) if (Math.abs(v - mode) > 40) off += hist[v]!;
  return off <= n / 20_000;
}

/** "page 7 is blank" / "pages 3–5000 are blank" / "pages 2, 4 and 9–12 are blank" */
export function blankPagesNote(pages: number[]): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(j === i ? String(sorted[i]) : `${sorted[i]}\u2013${sorted[j]}`);
    i = j + 1;
  }
  const list = ranges.length <= 2 ? ranges.join(' and ') : `${ranges.slice(0, -1).join(', ')} and ${ranges[ranges.length - 1]}`;
  return sorted.length === 1 ? `page ${list} is blank` : `pages ${list} are blank`;
}
