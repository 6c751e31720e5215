import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startStubLlm } from '../helpers/llm-stub.js';
import type { StubLlm } from '../helpers/llm-stub.js';

/**
 * Generation with an LLM (QUIRE_LLM_*), on a service whose Chromium is missing (QUIRE_CHROMIUM_PATH points
 * nowhere: pdf fails with SERVICE_UNAVAILABLE naming it, /readyz says so, other formats work). a plain instruction is written by the model from numbered passages
 * of the sources; its [n] markers become citations of those passages' chunks (a number that names no
 * passage is dropped). A stand-in OpenAI-compatible server plays the model: it writes a title, a section and
 * the first sentence of source 1 with its marker, plus a marker of a source that does not exist.
 */
function memoAnswer(user: string): string {
  const first = (/^\[1\] [^\n]*\n([\s\S]*?\.)(?:\s|$)/m.exec(user)?.[1] ?? 'Nothing.').replace(/\s+/g, ' ');
  return `# Staff memo\n\n## Findings\n\n${first} [1][99]\n\n- The sources name no budget.\n`;
}

const MISSING_CHROMIUM = '/nonexistent/chromium-for-test';

describe('generation with an LLM', () => {
  let s: TestServer;
  let llm: StubLlm;
  let docId = '';

  before(async () => {
    llm = await startStubLlm(memoAnswer);
    s = await startTestServer({ env: { QUIRE_LLM_BASE_URL: llm.url, QUIRE_LLM_MODEL: 'fake-writer', QUIRE_CHROMIUM_PATH: MISSING_CHROMIUM } });
    const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm('staffing.txt', 'Staffing update\n\nThe company hired 64 new engineers this year. Staff turnover fell to 7 percent, the lowest in five years.\n') });
    docId = up.body.id;
    assert.equal((await waitForStatus(s, `/v1/documents/${docId}`)).status, 'completed');
  });
  after(async () => {
    await s?.close();
    await llm?.close();
  });

  test('the model writes from numbered passages; its markers become citations of real chunks', async () => {
    const r = await s.json('/api/generate/run', { method: 'POST', json: { template_prompt: 'Write a short memo about staffing for the board', output_format: 'markdown', source_document_ids: [docId], async: true } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    let done: any;
    for (let i = 0; i < 600 && !(done && ['completed', 'failed'].includes(done.status)); i++) {
      done = (await s.json(`/api/generate/jobs/${r.body.job_id}`)).body;
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const prompt = llm.requests.at(-1).messages.at(-1).content as string;
    assert.match(prompt, /^\[1\] staffing\.txt, page 1\n/m);
    assert.match(prompt, /Instructions: Write a short memo about staffing for the board/);
    assert.equal(done.result.title, 'Staff memo');
    assert.equal(done.result.citations.length, 1, 'the marker of a source that does not exist is dropped');
    const chunks = (await s.json(`/v1/documents/${docId}/content?response=chunks`)).body.chunks.map((c: any) => c.id);
    assert.ok(chunks.includes(done.result.citations[0].chunk_id));
    const md = Buffer.from(await (await fetch(done.result.file_url)).arrayBuffer()).toString('utf8');
    assert.match(md, /^# Staff memo\n\n## Findings\n\n[^\n]*The company hired 64 new engineers this year\. \\\[1]\n/);
    assert.doesNotMatch(md, /\\?\[99\]/);
    assert.match(md, /## Sources\n\n1\. staffing\.txt, page 1 \(chunk /);
  });

  test('summaries: written by the model and cited; extractive: true keeps the offline sentences', async () => {
    const wait = async (id: string) => {
      for (let i = 0; i < 600; i++) {
        const j = (await s.json(`/api/generate/jobs/${id}`)).body;
        if (j.status === 'completed' || j.status === 'failed') return j;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('job did not finish');
    };
    let r = await s.json('/api/generate/summaries', { method: 'POST', json: { source_document_ids: [docId], config: { outputFormat: 'html', length: 'short' } } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    let done = await wait(r.body.job_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.match(llm.requests.at(-1).messages.at(-1).content, /Summarise the sources in 1 to 2 paragraphs/);
    assert.equal(done.result.citations.length, 1);
    assert.equal(done.result.sentences, undefined);
    const calls = llm.requests.length;
    r = await s.json('/api/generate/summaries', { method: 'POST', json: { source_document_ids: [docId], config: { outputFormat: 'html', length: 'short', extractive: true } } });
    done = await wait(r.body.job_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(llm.requests.length, calls, 'no model call');
    assert.ok(done.result.sentences.length >= 1);
  });

  test('reports: each section written by the model from its passages, citing real chunks', async () => {
    const before = llm.requests.length;
    const r = await s.json('/api/generate/reports', { method: 'POST', json: { source_document_ids: [docId], config: { title: 'Board report', outputFormat: 'markdown', sections: ['Hiring', 'Turnover'] } } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    let done: any;
    for (let i = 0; i < 600 && !(done && ['completed', 'failed'].includes(done.status)); i++) {
      done = (await s.json(`/api/generate/jobs/${r.body.job_id}`)).body;
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(llm.requests.length - before, 2, 'one call a section');
    assert.match(llm.requests.at(-1).messages.at(-1).content, /Instructions: Write the section "Turnover" of the report "Board report"\./);
    const chunks = (await s.json(`/v1/documents/${docId}/content?response=chunks`)).body.chunks.map((c: any) => c.id);
    assert.deepEqual(done.result.sections.map((x: any) => [x.name, x.citations.length]), [['Hiring', 1], ['Turnover', 1]]);
    for (const c of done.result.citations) assert.ok(chunks.includes(c.chunk_id));
    const md = Buffer.from(await (await fetch(done.result.file_url)).arrayBuffer()).toString('utf8');
    assert.match(md, /^# Board report\n\n## Hiring\n\n### Findings\n/);
    assert.match(md, /## Turnover\n\n### Findings\n/);
  });

  test('without Chromium a pdf fails with SERVICE_UNAVAILABLE naming the binary, nothing is charged, and /readyz says so', async () => {
    const before = (await s.json('/api/user/credits')).body.usage_summary.generate;
    const r = await s.json('/api/generate/run', { method: 'POST', json: { template_prompt: '# {{document.name}}', output_format: 'pdf', source_document_ids: [docId] } });
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.ok(r.body.error.message.includes(MISSING_CHROMIUM), r.body.error.message);
    assert.equal((await s.json('/api/user/credits')).body.usage_summary.generate, before, 'nothing charged');
    const ready = await s.json('/readyz');
    assert.equal(ready.body.plugins.find((p: any) => p.plugin === 'generator:pdf').ok, false);
    // other formats still work
    const html = await s.json('/api/generate/run', { method: 'POST', json: { template_prompt: '# {{document.name}}', output_format: 'html', source_document_ids: [docId] } });
    assert.equal(html.status, 200, JSON.stringify(html.body));
  });
});
