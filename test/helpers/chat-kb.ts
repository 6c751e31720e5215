import assert from 'node:assert/strict';
import { uploadForm, waitForStatus } from './server.js';
import type { TestServer } from './server.js';

/**
 * Uploads `docs` (file name, content), waits for each to complete, and adds them all to a new knowledge base named
 * `name`: the knowledge base's id, and each document's id by its file name.
 */
export async function knowledgeBaseOf(s: TestServer, name: string, docs: Array<[string, Uint8Array | string]>): Promise<{ kb: string; ids: Record<string, string> }> {
  const ids: Record<string, string> = {};
  for (const [file, body] of docs) {
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(file, body) });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    ids[file] = up.body.id;
  }
  const kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name } })).body.knowledge_base.id;
  const batch = await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: Object.values(ids) } });
  assert.equal(batch.body.added.length, docs.length);
  return { kb, ids };
}

/** Asks `message` over knowledge base `kb` (POST /api/chat): the answer's body, once it is a 200. */
export async function askChat(s: TestServer, kb: string, message: string): Promise<any> {
  const r = await s.json('/api/chat', { method: 'POST', json: { message, knowledge_base_id: kb } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/**
 * A suite's knowledge base, made in its `before` by `open` (as knowledgeBaseOf): `kb` its id, `ask` asks over it
 * (askChat), `cites` says whether an answer cites the document uploaded under a file name.
 */
export function suiteKnowledgeBase() {
  let server: TestServer | undefined;
  const k = {
    kb: '',
    ids: {} as Record<string, string>,
    async open(s: TestServer, name: string, docs: Array<[string, Uint8Array | string]>): Promise<void> {
      server = s;
      ({ kb: k.kb, ids: k.ids } = await knowledgeBaseOf(s, name, docs));
    },
    ask: (message: string): Promise<any> => askChat(server!, k.kb, message),
    cites: (a: any, name: string): boolean => a.citations.some((c: any) => c.document_id === k.ids[name]),
  };
  return k;
}
