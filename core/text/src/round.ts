/** `n` rounded to `digits` decimals (2 by default: coordinates in points, progress fractions). */
export function round(n: number, digits = 2): number {
  const k = 10 ** digits;
  return Math.round(n * k) / k;
}
