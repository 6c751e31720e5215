/**
 * JSON.stringify(value) as a sequence of UTF-8 buffers of about `pieceBytes` each: the same bytes, never one
 * string of the whole. A parsed document of 1,000 pages is 16 MB of JSON; as one string it is 32 MB of heap
 * (two bytes a character as soon as one character is outside Latin-1), and its Buffer 16 MB more, both at
 * once and on top of the document itself. Here the outer `depth` levels of objects and arrays (the document,
 * its pages and blocks) are walked and each of their members is stringified alone, so what is held at a time
 * is one member's text and one piece.
 *
 * The output is JSON.stringify's own: members in Object.keys order, members whose value has no JSON (undefined,
 * a function, a symbol) left out of objects and written `null` in arrays, toJSON() honoured (an object that has
 * one is stringified whole). No replacer, no indentation.
 */
export function* jsonPieces(value: unknown, opts: { depth?: number; pieceBytes?: number } = {}): Generator<Buffer> {
  const pieceBytes = opts.pieceBytes ?? 256 * 1024;
  let pending: string[] = [];
  let chars = 0;
  for (const text of jsonTexts(value, opts.depth ?? 2)) {
    pending.push(text);
    chars += text.length;
    // a character is at most 3 bytes of UTF-8 (a surrogate pair: 2 characters, 4 bytes)
    if (chars * 3 >= pieceBytes) {
      yield Buffer.from(pending.join(''));
      pending = [];
      chars = 0;
    }
  }
  if (chars) yield Buffer.from(pending.join(''));
}

/** Arrays and objects whose own prototype is Object's (or none): walked member by member. */
function walkable(v: unknown): v is Record<string, unknown> | unknown[] {
  if (typeof v !== 'object' || v === null) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function* jsonTexts(value: unknown, depth: number): Generator<string> {
  if (depth <= 0 || !walkable(value)) {
    // undefined at the top (JSON.stringify(undefined)) is no JSON at all: nothing is written
    const text = JSON.stringify(value);
    if (text !== undefined) yield text;
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i) yield ',';
      const v = value[i];
      if (walkable(v)) yield* jsonTexts(v, depth - 1);
      else yield JSON.stringify(v) ?? 'null';
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (walkable(v)) {
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      yield* jsonTexts(v, depth - 1);
    } else {
      const text = JSON.stringify(v);
      if (text === undefined) continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
    }
    first = false;
  }
  yield '}';
}
