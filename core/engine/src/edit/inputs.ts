/**
 * An `input` URL of an edit request becomes a document of the caller: fetched SSRF-safely (the URL was
 * vetted by resolveInput; fetchUrl checks every address again while it downloads, size- and time-bounded)
 * into storage, its format detected, then the ordinary upload pipeline parses it. The edit job waits for
 * that parse (its words name the blanks).
 */
import { randomUUID } from 'node:crypto';
import { errors, isQuireError } from '@quire/core';
import type { DocumentRecord, Owned } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { fetchInputToStorage } from '../parse/pipeline.js';
import { originalKey } from '../io/steps.js';
import { createDocument, detectStored } from '../io/documents.js';

/**
 * HEIC/HEIF photos are refused: the decoders on npm wrap libheif, which is LGPL-3.0 (heic-decode itself is
 * ISC but needs libheif-js), outside the project's Apache-2.0-compatible dependencies.
 */
export const HEIC_UNSUPPORTED = 'HEIC/HEIF images cannot be edited: no HEIC decoder with an Apache-2.0-compatible licence is available (libheif is LGPL-3.0); convert the photo to JPEG or PNG first';
const HEIC = /\.(heic|heif)$/i;

export async function documentFromUrl(rt: Engine, owner: Owned, url: string): Promise<DocumentRecord> {
  const id = randomUUID();
  const key = originalKey(id);
  if (HEIC.test(new URL(url).pathname)) throw errors.unsupported(HEIC_UNSUPPORTED);
  const file = await fetchInputToStorage(rt, url, key).catch((e) => {
    throw isQuireError(e) && e.code === 'UNSUPPORTED_FORMAT' && /heic|heif/i.test(e.message) ? errors.unsupported(HEIC_UNSUPPORTED) : e;
  });
  try {
    const detected = await detectStored(rt, key, file.name);
    return (await createDocument(rt, owner, { id, name: file.name, size: file.size, sha256: null, format: detected.format, mime: detected.mime, parsingConfig: null })).doc;
  } catch (e) {
    await rt.storage.delete(key).catch(() => undefined);
    throw e;
  }
}
