/**
 * An `input` URL of an edit request becomes a document of the caller: fetched SSRF-safely (the URL was
 * vetted by resolveInput; fetchUrl checks every address again while it downloads, size- and time-bounded)
 * into storage, its format detected, then the ordinary upload pipeline parses it. The edit job waits for
 * that parse (its words name the blanks).
 */
import { randomUUID } from 'node:crypto';
import type { DocumentRecord, Owned } from '@quire/core';
import type { EngineContext as Engine } from '../context.js';
import { fetchInputToStorage } from '../pipelines/parse.js';
import { originalKey } from '../pipelines/steps.js';
import { createDocument, detectStored } from '../services/documents.js';

export async function documentFromUrl(rt: Engine, owner: Owned, url: string): Promise<DocumentRecord> {
  const id = randomUUID();
  const key = originalKey(id);
  const file = await fetchInputToStorage(rt, url, key);
  try {
    const detected = await detectStored(rt, key, file.name);
    return (await createDocument(rt, owner, { id, name: file.name, size: file.size, sha256: null, format: detected.format, mime: detected.mime, parsingConfig: null })).doc;
  } catch (e) {
    await rt.storage.delete(key).catch(() => undefined);
    throw e;
  }
}
