declare module 'inflation' {
  import type { Readable } from 'node:stream';
  /** The stream decompressed by its Content-Encoding (gzip, deflate, br); throws (status 415) for other encodings. */
  export default function inflate(stream: Readable, options?: { encoding?: string }): Readable;
}
