import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { createKey, findOrCreateUser } from '@quire/server';
import { CORPUS, hasCorpus, startTestServer, until, uploadForm, waitForStatus } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { makeDocx, makePdf } from '../helpers/fixtures.js';

const NOT_FOUND = "I could not find this in the knowledge base's sources.";

const OBSERVATORY =
  'Orvella Observatory\n\n' +
  'The Orvella Observatory was founded in 1893 by the astronomer Katrin Malmberg on the slopes of Mount Tessaly. ' +
  'Its main instrument is a refracting telescope with a 74 centimetre lens, completed in 1901.\n\n' +
  'The observatory discovered the comet Malmberg-Osei in 1927. Since 1988 it has been run by the University of Vantaa as a teaching site.\n\n' +
  'Visitors can tour the dome on Saturdays between April and September; tickets cost 12 euros.\n';

const SDK_GUIDE = `<!doctype html><html><head><title>Quire SDK quick start</title></head><body>
<h1>Quire SDK quick start</h1>
<p>To create a client in JavaScript, install the package and pass your API key to the QuireClient constructor.</p>
<pre><code>import { QuireClient } from '@quire/sdk';
const client = new QuireClient({ apiKey: process.env.QUIRE_KEY });
const doc = await client.documents.upload('invoice.pdf');
</code></pre>
<p>To search a collection from Python, call the search method of the client with a query.</p>
<pre><code>from quire import Client
client = Client(api_key=KEY)
results = client.search(query='late fees', collection_id=COLLECTION)
</code></pre>
</body></html>
`;

const TIDES = 'Ocean tides\n\nTides are the rise and fall of sea levels caused by the gravitational pull of the Moon and the Sun. Spring tides happen at full and new moon.';

async function upload(s: TestServer, name: string, body: string | Uint8Array, key?: string): Promise<string> {
  const up = await s.json('/v1/documents', { method: 'POST', body: uploadForm(name, body), key });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  const done = await waitForStatus(s, `/v1/documents/${up.body.id}`, 300_000);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return up.body.id;
}

const norm = (t: string) =>
  t
    // a passage answer quotes its sentences after "The documents say:"
    .replace(/the documents say:\s*/gi, '')
    .replace(/[“”]/g, '')
    .replace(/\s*\[\s*\d{1,3}\s*\]/g, '')
    .replace(/\*\*|__|`|…/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

/** Checks an answer against the stored chunks: every citation is a real chunk of a knowledge-base document, every quoted sentence is in the chunk it cites, and the expected document is cited. */
async function assertGrounded(s: TestServer, a: { message: string; citations: any[] }, expectedDocs: string[], kbDocs: string[], key?: string): Promise<void> {
  assert.ok(a.citations.length >= 1, `no citations: ${a.message}`);
  assert.ok(!a.message.startsWith(NOT_FOUND), a.message);
  const byDoc = new Map<string, any[]>();
  for (const c of a.citations) {
    assert.ok(kbDocs.includes(c.document_id), `citation outside the knowledge base: ${c.document_id}`);
    if (!byDoc.has(c.document_id)) {
      const r = await s.json(`/v1/documents/${c.document_id}/content?response=chunks`, { key });
      assert.equal(r.status, 200);
      byDoc.set(c.document_id, r.body.chunks);
    }
    const chunk = byDoc.get(c.document_id)!.find((x: any) => x.id === c.chunk_id);
    assert.ok(chunk, `citation ${c.chunk_id} is not a chunk of ${c.document_id}`);
    assert.equal(chunk.content, c.content, 'citation content is the chunk content');
    assert.equal(chunk.page, c.page);
  }
  assert.ok(a.citations.some((c) => expectedDocs.includes(c.document_id)), `expected a citation of ${expectedDocs.join(', ')}; got ${a.citations.map((c) => c.document_name).join(', ')}`);
  // every sentence of the answer is followed by [n]; the text before a marker is in the chunk of citation n
  const re = /([^[\]]+?)\s*((?:\[\d+\])+)/g;
  let m: RegExpExecArray | null;
  let quoted = 0;
  while ((m = re.exec(a.message))) {
    const text = norm(m[1]!.replace(/```\w*|```/g, ''));
    if (text.length < 8) continue;
    const nums = [...m[2]!.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1]));
    for (const n of nums) assert.ok(n >= 1 && n <= a.citations.length, `marker [${n}] has no citation`);
    const within = nums.some((n) => {
      const c = a.citations[n - 1];
      const chunkText = norm(c.content);
      // (a table cell is quoted with its row label and column header: "Rotterdam (Score): 97", each part in the chunk)
      const cell = text.match(/^(.+?) \((.+)\): (.+)$/);
      if (cell) return cell.slice(1).every((part) => chunkText.includes(part.trim()));
      return chunkText.includes(text) || text.split(/(?<=[.!?])\s+/).every((part) => chunkText.includes(part.trim()) || part.trim().length < 8);
    });
    assert.ok(within, `"${m[1]}" is not in the chunk it cites`);
    quoted++;
  }
  assert.ok(quoted >= 1, `no cited sentence in ${a.message}`);
}

/** A bill and a hearing record: values whose labels say them in other words than the questions. */
const BRIGHTWATER = [
  { heading: 'Brightwater Utilities', lines: ['Customer: Marta Okonkwo', 'Invoice date: 14 March 2023', 'TOTAL AMOUNT DUE', '$312.40', 'Please pay within thirty days of receiving this statement.'] },
  { heading: 'Hearing record', lines: ['ORAL ARGUMENT OF DANIEL FERREIRA, ON BEHALF OF THE RESPONDENT', 'The hearing took place in the Eastfield courthouse before three judges.'] },
];

describe('chat over a knowledge base of generated documents', () => {
  let s: TestServer;
  let otherKey = '';
  const ids: Record<string, string> = {};
  let kb = '';
  let kbDocs: string[] = [];
  const events: { type: string; data: any; user_id: string | null }[] = [];
  let queries = 0;
  const deletedAnswers: string[] = [];

  const ask = async (message: string, extra: Record<string, unknown> = {}, key?: string) => {
    const r = await s.json('/api/chat', { method: 'POST', json: { message, knowledge_base_id: kb, ...extra }, key });
    if (r.status === 200) queries++;
    return r;
  };

  before(async () => {
    // the answerer's rules are tested with every answer given (no confidence floor); the default floor has a test of its own
    s = await startTestServer({ env: { QUIRE_CHAT_MIN_CONFIDENCE: '0' } });
    s.runtime.events.on('*', (e) => void events.push({ type: e.type, data: e.data, user_id: e.user_id }));
    const pdf = await makePdf([
      { heading: 'Lindqvist Harbour Ferries', lines: ['The ferry line between Aldholm and Skerra opened in 1956.', 'It is run by the Lindqvist family company.'] },
      { heading: 'Timetable', lines: ['The first ferry leaves Aldholm at 06:40 every weekday.', 'The crossing takes 35 minutes in calm weather.'] },
      { heading: 'Fares', lines: ['A single adult ticket costs 9 euros and bicycles travel free.', 'Children under twelve travel at half price.'] },
    ]);
    const files: [string, string | Uint8Array][] = [
      ['orvella-observatory.txt', OBSERVATORY],
      ['harbour-ferries.pdf', pdf],
      ['safety-review.docx', await makeDocx()],
      ['sdk-guide.html', SDK_GUIDE],
      ['tides.txt', TIDES],
    ];
    for (const [name, body] of files) ids[name] = await upload(s, name, body);
    const created = await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Handbook', settings: { retrieval: { top_k: 5 } } } });
    kb = created.body.knowledge_base.id;
    kbDocs = ['orvella-observatory.txt', 'harbour-ferries.pdf', 'safety-review.docx', 'sdk-guide.html'].map((n) => ids[n]!);
    const batch = await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: kbDocs } });
    assert.equal(batch.body.added.length, 4);
    const other = await findOrCreateUser(s.runtime.store, 'other-chat@test.local', 'premium');
    otherKey = (await createKey(s.runtime.store, other.id, 'o')).key;
  });
  after(async () => {
    await s?.close();
  });

  test('answers known questions by quoting the right document, every citation a real chunk', async () => {
    const cases: [string, string, RegExp][] = [
      ['Who founded the Orvella Observatory?', 'orvella-observatory.txt', /Katrin Malmberg/],
      ['When does the first ferry leave Aldholm?', 'harbour-ferries.pdf', /06:40/],
      ['How much does a single adult ferry ticket cost?', 'harbour-ferries.pdf', /9 euros/],
      ['How many incidents did the warehouse record in the spring quarter?', 'safety-review.docx', /zero incidents/],
      ['What inspection score did Rotterdam get?', 'safety-review.docx', /97/],
    ];
    for (const [q, doc, expected] of cases) {
      const r = await ask(q);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const a = r.body;
      console.log(`Q: ${q}\nA: ${a.message} (confidence ${a.confidence})`);
      assert.match(a.message, expected, q);
      await assertGrounded(s, a, [ids[doc]!], kbDocs);
      assert.equal(a.mode, 'quick');
      assert.ok(a.confidence > 0.4 && a.confidence <= 1, `confidence ${a.confidence}`);
      assert.match(a.session_id, /^[0-9a-f-]{36}$/);
      assert.match(a.message_id, /^[0-9a-f-]{36}$/);
      for (const c of a.citations) {
        assert.deepEqual(Object.keys(c).sort(), ['chunk_id', 'content', 'document_id', 'document_name', 'metadata', 'page', 'score']);
        assert.ok(typeof c.score === 'number' && c.page >= 1);
      }
    }
    const ferry = (await ask('When does the first ferry leave Aldholm?')).body;
    assert.ok(ferry.citations.some((c: any) => c.document_id === ids['harbour-ferries.pdf'] && c.page === 2), 'the timetable is on page 2');
  });

  test('a question the sources do not answer gets the refusal, no citations and low confidence', async () => {
    for (const q of ['What is the boiling point of mercury on Jupiter?', 'Why do spring tides happen at full moon?']) {
      const r = await ask(q);
      assert.equal(r.status, 200);
      console.log(`Q: ${q}\nA: ${r.body.message} (confidence ${r.body.confidence})`);
      assert.equal(r.body.message, NOT_FOUND, q);
      assert.deepEqual(r.body.citations, []);
      assert.ok(r.body.confidence < 0.3, `confidence ${r.body.confidence}`);
    }
    // confidence is derived, not constant
    const a = (await ask('Who founded the Orvella Observatory?')).body;
    const b = (await ask('Which comet did the Orvella Observatory discover in 1927?')).body;
    assert.match(b.message, /Malmberg-Osei/);
    assert.notEqual(a.confidence, b.confidence === a.confidence ? -1 : b.confidence);
  });

  test('paraphrased who / when / how-much questions are answered with the asked-for value; without it the answer is a refusal', async () => {
    const pdf = await makePdf(BRIGHTWATER);
    const docId = await upload(s, 'brightwater-records.pdf', pdf);
    const records = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Records' } })).body.knowledge_base.id;
    await s.json(`/api/knowledge-bases/${records}/documents/batch`, { method: 'POST', json: { document_ids: [docId, ids['harbour-ferries.pdf']] } });
    const askRecords = async (message: string) => (await ask(message, { knowledge_base_id: records })).body;
    // the words differ from the document's: argued / argument on behalf of, issued / invoice date, owed / amount due
    const who = await askRecords('Who argued for the respondent?');
    assert.match(who.message, /FERREIRA/, who.message);
    const when = await askRecords('When was the Brightwater invoice issued?');
    assert.match(when.message, /14 March 2023/, when.message);
    // the value sits on the line below its label: quoted with it, not the label alone
    const much = await askRecords('How much is owed on the Brightwater bill?');
    assert.match(much.message, /\$312\.40/, much.message);
    for (const a of [who, when, much]) assert.equal(a.citations[0].document_id, docId);
    // the hearing is described, but no date is given: a "when" question is refused rather than answered with another sentence
    const noDate = await askRecords('When was the hearing held?');
    assert.equal(noDate.message, NOT_FOUND, noDate.message);
    assert.ok(noDate.confidence <= 0.3, `confidence ${noDate.confidence}`);
    // confidence falls when the cited sentence covers less of the question
    const partial = await askRecords('Who argued for the respondent in the fishing licence dispute about the northern harbour?');
    assert.ok(partial.confidence < who.confidence, `partial ${partial.confidence} vs full ${who.confidence}`);
  });

  test('a value must stand by the words of the question: competing values, a label over fields of their own, no evidence → refusal', async () => {
    const receipt =
      'Kestrel Diner receipt\n\nReceipt details:\n\n1\n\nVenue: Harbour Grill\n\n2\n\nHost: Tomas Lindgren\n\n3\n\nParty size: 4\n\n' +
      'Charges\n\nLine one: $12.50\n\nLine two: $31.00\n\n' +
      'Many ferry operators serve the Aldholm route, among them Nordlink and Skerra Lines, which both sail daily.\n';
    const docId = await upload(s, 'kestrel-receipt.txt', receipt);
    const base = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Receipts' } })).body.knowledge_base.id;
    await s.json(`/api/knowledge-bases/${base}/documents/batch`, { method: 'POST', json: { document_ids: [docId] } });
    const askBase = async (message: string) => (await ask(message, { knowledge_base_id: base })).body;
    // two short lines hold an amount and match the question equally: the question does not tell which
    const charge = await askBase('How much was the Kestrel line charge?');
    assert.equal(charge.message, NOT_FOUND, charge.message);
    // "Receipt details:" is not answered with the field below it ("Venue: Harbour Grill")
    const host = await askBase('Who hosted the Kestrel party?');
    assert.match(host.message, /Tomas Lindgren/, host.message);
    assert.doesNotMatch(host.message, /Harbour Grill/, host.message);
    // the sentence names ferry operators (the kind asked for) but says nothing about commuters or favour
    const favoured = await askBase('Which ferry operator do commuters favour?');
    assert.equal(favoured.message, NOT_FOUND, favoured.message);
  });

  test('by default an answer below QUIRE_CHAT_MIN_CONFIDENCE (0.6) is not given: the refusal instead', async () => {
    const pdf = await makePdf(BRIGHTWATER);
    const questions = ['Who argued for the respondent?', 'How much is owed on the bill?'];
    const answers = async (t: TestServer) => {
      const docId = await upload(t, 'brightwater-records.pdf', pdf);
      const base = (await t.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Records' } })).body.knowledge_base.id;
      await t.json(`/api/knowledge-bases/${base}/documents/batch`, { method: 'POST', json: { document_ids: [docId] } });
      const out = [];
      for (const message of questions) {
        out.push((await t.json('/api/chat', { method: 'POST', json: { message, knowledge_base_id: base } })).body);
        if (t === s) queries++; // (the credits test counts this server's queries)
      }
      return out;
    };
    const [sure, unsure] = await answers(s);
    // without a floor: both answered, the second from a sentence that says less of the question ("owed", "bill": "TOTAL AMOUNT DUE")
    assert.match(sure.message, /FERREIRA/);
    assert.match(unsure.message, /\$312\.40/);
    assert.ok(sure.confidence >= 0.6 && unsure.confidence < 0.6, `${sure.confidence} / ${unsure.confidence}`);
    const d = await startTestServer();
    try {
      const [sureDefault, unsureDefault] = await answers(d);
      assert.equal(sureDefault.message, sure.message);
      assert.equal(sureDefault.confidence, sure.confidence);
      assert.equal(unsureDefault.message, NOT_FOUND, unsureDefault.message);
      assert.deepEqual(unsureDefault.citations, []);
      assert.ok(unsureDefault.confidence <= 0.3, `confidence ${unsureDefault.confidence}`);
    } finally {
      await d.close();
    }
  });

  test('deep mode splits a multi-part question and answers each part; code mode answers with code', async () => {
    const deep = await ask('Who founded the Orvella Observatory and when does the first ferry leave Aldholm?', { mode: 'deep' });
    assert.equal(deep.status, 200);
    console.log(`deep: ${deep.body.message}`);
    assert.equal(deep.body.mode, 'deep');
    assert.match(deep.body.message, /Katrin Malmberg/);
    assert.match(deep.body.message, /06:40/);
    await assertGrounded(s, deep.body, [ids['orvella-observatory.txt']!], kbDocs);
    await assertGrounded(s, deep.body, [ids['harbour-ferries.pdf']!], kbDocs);

    const partly = await ask('Who founded the Orvella Observatory and what is the boiling point of mercury?', { mode: 'deep' });
    console.log(`deep, half answerable: ${partly.body.message}`);
    assert.match(partly.body.message, /Katrin Malmberg/);
    assert.match(partly.body.message, /The sources do not cover: "what is the boiling point of mercury\?"/);
    assert.ok(partly.body.citations.every((c: any) => c.document_id === ids['orvella-observatory.txt']));

    const code = await ask('How do I create a QuireClient in JavaScript?', { mode: 'code' });
    assert.equal(code.status, 200);
    console.log(`code: ${code.body.message}`);
    assert.equal(code.body.mode, 'code');
    assert.match(code.body.message, /```(?:javascript|typescript)?\n[\s\S]*new QuireClient\(\{ apiKey: process\.env\.QUIRE_KEY \}\)[\s\S]*```/);
    assert.ok(code.body.citations.every((c: any) => c.document_id === ids['sdk-guide.html']));
    const quick = await ask('How do I create a QuireClient in JavaScript?');
    assert.ok(!quick.body.message.includes('```'), 'quick mode quotes sentences');
  });

  test('sessions persist across turns; a follow-up uses the conversation', async () => {
    const first = await ask('Who founded the Orvella Observatory?');
    assert.equal(first.status, 200);
    const sid = first.body.session_id;
    const follow = await ask('Which comet did it discover?', { session_id: sid });
    assert.equal(follow.status, 200, JSON.stringify(follow.body));
    console.log(`follow-up: ${follow.body.message}`);
    assert.equal(follow.body.session_id, sid);
    assert.match(follow.body.message, /Malmberg-Osei/);
    await assertGrounded(s, follow.body, [ids['orvella-observatory.txt']!], kbDocs);

    const list = await s.json(`/api/chat/sessions?knowledge_base_id=${kb}`);
    assert.equal(list.status, 200);
    const mine = list.body.sessions.find((x: any) => x.id === sid);
    assert.ok(mine, 'the session is listed');
    assert.equal(mine.message_count, 4);
    assert.equal(mine.knowledge_base_id, kb);
    assert.equal(mine.title, 'Who founded the Orvella Observatory?');
    assert.equal(list.body.sessions[0].id, sid, 'latest activity first');
    const one = await s.json(`/api/chat/sessions/${sid}`);
    assert.equal(one.body.session.message_count, 4);

    const msgs = await s.json(`/api/chat/sessions/${sid}/messages`);
    assert.equal(msgs.status, 200);
    assert.deepEqual(msgs.body.messages.map((m: any) => m.role), ['user', 'assistant', 'user', 'assistant']);
    assert.equal(msgs.body.messages[0].content, 'Who founded the Orvella Observatory?');
    assert.equal(msgs.body.messages[3].id, follow.body.message_id);
    assert.equal(msgs.body.messages[3].content, follow.body.message);
    assert.equal(msgs.body.messages[3].query, 'Which comet did it discover?');
    assert.equal(msgs.body.messages[3].confidence, follow.body.confidence);
    assert.equal(msgs.body.messages[3].citations[0].document_id, ids['orvella-observatory.txt']);
    assert.equal(msgs.body.messages[3].citations[0].chunk_id, follow.body.citations[0].chunk_id);
    assert.equal(typeof msgs.body.messages[3].response_time_ms, 'number');

    // a session of another knowledge base is refused; an unknown one is not found
    const otherKb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Other' } })).body.knowledge_base.id;
    const wrongKb = await s.json('/api/chat', { method: 'POST', json: { message: 'tides?', knowledge_base_id: otherKb, session_id: sid } });
    assert.equal(wrongKb.status, 400);
    assert.equal(wrongKb.body.error.code, 'VALIDATION_ERROR');
    const missing = await ask('hello there', { session_id: '00000000-0000-4000-8000-000000000000' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    const empty = await s.json('/api/chat', { method: 'POST', json: { message: 'Who founded the Orvella Observatory?', knowledge_base_id: otherKb } });
    assert.equal(empty.status, 200);
    queries++;
    assert.equal(empty.body.message, NOT_FOUND, 'an empty knowledge base has no sources');

    const del = await s.json(`/api/chat/sessions/${empty.body.session_id}`, { method: 'DELETE' });
    deletedAnswers.push(empty.body.message_id);
    assert.deepEqual(del.body, { success: true, id: empty.body.session_id });
    assert.equal((await s.json(`/api/chat/sessions/${empty.body.session_id}/messages`)).status, 404);
  });

  test('feedback on an answer shows in the knowledge base analytics', async () => {
    const fresh = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Ferries' } })).body.knowledge_base.id;
    await s.json(`/api/knowledge-bases/${fresh}/documents`, { method: 'POST', json: { document_id: ids['harbour-ferries.pdf'] } });
    const q = 'When does the first ferry leave Aldholm?';
    const answers = [];
    for (const message of [q, q, 'How long does the crossing take?', 'What is the boiling point of mercury on Jupiter?']) {
      const r = await s.json('/api/chat', { method: 'POST', json: { message, knowledge_base_id: fresh } });
      assert.equal(r.status, 200);
      queries++;
      answers.push(r.body);
    }
    assert.match(answers[2].message, /35 minutes/);
    const up = await s.json(`/api/knowledge-bases/${fresh}/analytics/feedback`, { method: 'POST', json: { message_id: answers[0].message_id, feedback: 'thumbs_up' } });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    await s.json(`/api/knowledge-bases/${fresh}/analytics/feedback`, { method: 'POST', json: { message_id: answers[2].message_id, feedback: 'thumbs_up' } });
    await s.json(`/api/knowledge-bases/${fresh}/analytics/feedback`, { method: 'POST', json: { message_id: answers[3].message_id, feedback: 'thumbs_down' } });
    const an = await s.json(`/api/knowledge-bases/${fresh}/analytics`);
    assert.equal(an.status, 200);
    assert.equal(an.body.summary.total_queries, 4);
    assert.deepEqual(an.body.summary.feedback, { positive: 2, negative: 1 });
    const expectedAvg = Math.round((answers.reduce((n, a) => n + a.confidence, 0) / 4) * 1000) / 1000;
    assert.ok(Math.abs(an.body.summary.avg_confidence - expectedAvg) < 0.002, `${an.body.summary.avg_confidence} vs ${expectedAvg}`);
    assert.equal(an.body.popular_queries[0].query, q);
    assert.equal(an.body.popular_queries[0].count, 2);
    assert.equal(an.body.recent_queries[0].query, 'What is the boiling point of mercury on Jupiter?');
    assert.equal(an.body.document_usage[0].document_id, ids['harbour-ferries.pdf']);
    assert.equal(an.body.document_usage[0].citation_count, 3);
    // someone else cannot rate my answer
    const theirs = await s.json(`/api/knowledge-bases/${fresh}/analytics/feedback`, { method: 'POST', json: { message_id: answers[1].message_id, feedback: 'thumbs_down' }, key: otherKey });
    assert.equal(theirs.status, 404);
  });

  test('streaming over Server-Sent Events gives the same answer as JSON', async () => {
    const res = await s.api('/api/chat', { method: 'POST', json: { message: 'When does the first ferry leave Aldholm?', knowledge_base_id: kb, stream: true } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const events = parseSse(await res.text());
    queries++;
    assert.equal(events[0]!.event, 'start');
    assert.equal(events.at(-1)!.event, 'complete');
    const start = events[0]!.data;
    const done = events.at(-1)!.data.result;
    assert.equal(start.session_id, done.session_id);
    assert.equal(start.message_id, done.message_id);
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.content);
    assert.ok(deltas.length >= 1);
    assert.equal(deltas.join(''), done.message);
    assert.match(done.message, /06:40/);
    await assertGrounded(s, done, [ids['harbour-ferries.pdf']!], kbDocs);
    // errors found up front are plain JSON errors
    const bad = await s.api('/api/chat', { method: 'POST', json: { message: 'x', knowledge_base_id: '00000000-0000-4000-8000-000000000000', stream: true } });
    assert.equal(bad.status, 404);
    assert.equal((await bad.json()).error.code, 'NOT_FOUND');
  });

  test('validation, ownership and authentication', async () => {
    const cases: [unknown, string][] = [
      [{ knowledge_base_id: kb }, 'body.message'],
      [{ message: '   ', knowledge_base_id: kb }, 'body.message'],
      [{ message: 'hi' }, 'body.knowledge_base_id'],
      [{ message: 'hi', knowledge_base_id: 'not-a-uuid' }, 'body.knowledge_base_id'],
      [{ message: 'hi', knowledge_base_id: kb, mode: 'fast' }, 'body.mode'],
      [{ message: 'hi', knowledge_base_id: kb, session_id: '123' }, 'body.session_id'],
      [{ message: 'hi', knowledge_base_id: kb, colour: 'red' }, 'body'],
    ];
    for (const [json, field] of cases) {
      const r = await s.json('/api/chat', { method: 'POST', json });
      assert.equal(r.status, 400, JSON.stringify(json));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
      assert.ok(r.body.error.details.some((d: any) => d.field === field || d.field.startsWith(field)), `${field}: ${JSON.stringify(r.body.error.details)}`);
    }
    const mine = (await ask('Who founded the Orvella Observatory?')).body;
    // another user sees neither the knowledge base nor the session
    const theirAsk = await ask('Who founded the Orvella Observatory?', {}, otherKey);
    assert.equal(theirAsk.status, 404);
    const theirKb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Theirs' }, key: otherKey })).body.knowledge_base.id;
    const hijack = await s.json('/api/chat', { method: 'POST', json: { message: 'Who founded it?', knowledge_base_id: theirKb, session_id: mine.session_id }, key: otherKey });
    assert.equal(hijack.status, 404);
    assert.equal(hijack.body.error.code, 'NOT_FOUND');
    assert.equal((await s.json(`/api/chat/sessions/${mine.session_id}`, { key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/chat/sessions/${mine.session_id}/messages`, { key: otherKey })).status, 404);
    assert.equal((await s.json(`/api/chat/sessions/${mine.session_id}`, { method: 'DELETE', key: otherKey })).status, 404);
    assert.ok(!(await s.json('/api/chat/sessions', { key: otherKey })).body.sessions.some((x: any) => x.id === mine.session_id));
    // their knowledge base answers from their documents only, never from mine
    const theirs = await s.json('/api/chat', { method: 'POST', json: { message: 'Who founded the Orvella Observatory?', knowledge_base_id: theirKb }, key: otherKey });
    assert.equal(theirs.status, 200);
    queries++;
    assert.equal(theirs.body.message, NOT_FOUND);
    assert.equal((await s.json('/api/chat', { method: 'POST', json: { message: 'x', knowledge_base_id: kb }, key: null })).status, 401);
    const api = (await s.json('/openapi.json', { key: null })).body;
    for (const [p, m] of [['/api/chat', 'post'], ['/api/chat/sessions', 'get'], ['/api/chat/sessions/{id}/messages', 'get'], ['/v1/chat/completions', 'post'], ['/v1/models', 'get']] as const) assert.ok(api.paths[p]?.[m], `${m} ${p} documented`);
    assert.ok(api.paths['/v1/chat/completions'].post.requestBody, 'request schema documented');
    assert.equal((await s.json('/v1/chat/completions', { method: 'POST', json: { model: `kb:${kb}`, messages: [{ role: 'user', content: 'x' }] }, key: null })).status, 401);
  });

  test('the OpenAI client works unchanged: plain and streamed completions with citations', async () => {
    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.url}/v1` });
    const plain = await client.chat.completions.create({ model: `kb:${kb}`, messages: [{ role: 'user', content: 'When does the first ferry leave Aldholm?' }] });
    queries++;
    assert.equal(plain.object, 'chat.completion');
    assert.match(plain.id, /^chatcmpl-/);
    assert.equal(plain.model, `kb:${kb}`);
    assert.equal(typeof plain.created, 'number');
    assert.equal(plain.choices.length, 1);
    assert.equal(plain.choices[0]!.message.role, 'assistant');
    assert.equal(plain.choices[0]!.finish_reason, 'stop');
    const content = plain.choices[0]!.message.content!;
    assert.match(content, /06:40/);
    assert.ok(plain.usage!.prompt_tokens > 0 && plain.usage!.completion_tokens > 0);
    assert.equal(plain.usage!.total_tokens, plain.usage!.prompt_tokens + plain.usage!.completion_tokens);
    const citations = (plain as any).citations;
    await assertGrounded(s, { message: content, citations }, [ids['harbour-ferries.pdf']!], kbDocs);

    // history: the earlier turns make the follow-up answerable; collection: and bare ids name the same knowledge base
    for (const model of [`collection:${kb}`, kb]) {
      const follow = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'Answer briefly.' },
          { role: 'user', content: 'Who founded the Orvella Observatory?' },
          { role: 'assistant', content: 'Katrin Malmberg founded it in 1893. [1]' },
          { role: 'user', content: [{ type: 'text', text: 'Which comet did it discover?' }] },
        ],
      });
      queries++;
      assert.match(follow.choices[0]!.message.content!, /Malmberg-Osei/, model);
    }

    const stream = await client.chat.completions.create({ model: `kb:${kb}:quick`, messages: [{ role: 'user', content: 'How much does a single adult ferry ticket cost?' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let last: any = null;
    let usage: any = null;
    let n = 0;
    let role = '';
    for await (const chunk of stream) {
      n++;
      assert.equal(chunk.object, 'chat.completion.chunk');
      assert.match(chunk.id, /^chatcmpl-/);
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      if (choice.delta.role) role = choice.delta.role;
      text += choice.delta.content ?? '';
      if (choice.finish_reason) {
        finish = choice.finish_reason;
        last = chunk;
      }
    }
    queries++;
    assert.ok(n >= 3);
    assert.equal(role, 'assistant');
    assert.equal(finish, 'stop');
    assert.match(text, /9 euros/);
    assert.ok(usage && usage.total_tokens > 0);
    await assertGrounded(s, { message: text, citations: last.citations }, [ids['harbour-ferries.pdf']!], kbDocs);

    // deep mode by model suffix; unknown knowledge base and bad model names are errors the client raises
    const deep = await client.chat.completions.create({ model: `kb:${kb}:deep`, messages: [{ role: 'user', content: 'Who founded the Orvella Observatory and when does the first ferry leave Aldholm?' }] });
    queries++;
    assert.match(deep.choices[0]!.message.content!, /Katrin Malmberg[\s\S]*06:40|06:40[\s\S]*Katrin Malmberg/);
    await assert.rejects(client.chat.completions.create({ model: 'kb:00000000-0000-4000-8000-000000000000', messages: [{ role: 'user', content: 'x' }] }), (e: any) => e.status === 404 && e.error?.code === 'NOT_FOUND');
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }), (e: any) => e.status === 400 && e.error?.code === 'VALIDATION_ERROR');
    await assert.rejects(client.chat.completions.create({ model: `kb:${kb}`, messages: [{ role: 'assistant', content: 'x' }] }), (e: any) => e.status === 400);
    const models = await client.models.list();
    assert.ok(models.data.some((m) => m.id === `kb:${kb}`));
  });

  test('credits: 0.1 per query in the usage table; chat events', async () => {
    const rows = await s.runtime.store.repo('usage').find({ operation: 'chat' });
    assert.equal(rows.length, queries, `${rows.length} chat usage rows for ${queries} queries`);
    assert.ok(rows.every((r) => r.credits === 0.1 && r.units === 1));
    const messageIds = new Set([...(await s.runtime.store.repo('chat_messages').find({ role: 'assistant' })).map((m) => m.id), ...deletedAnswers]);
    assert.ok(rows.every((r) => r.resource_id && messageIds.has(r.resource_id)), 'each charge names its answer');

    const before = events.length;
    const r = await ask('Who founded the Orvella Observatory?');
    // over RabbitMQ the events come back through the fanout, a moment after the answer
    const mineNow = await until('chat.session.created and chat.message', () => {
      const seen = events.slice(before);
      return seen.some((e) => e.type === 'chat.session.created') && seen.some((e) => e.type === 'chat.message') && seen;
    });
    const created = mineNow.find((e) => e.type === 'chat.session.created')!;
    const message = mineNow.find((e) => e.type === 'chat.message')!;
    assert.equal(created.data.session_id, r.body.session_id);
    assert.equal(created.data.knowledge_base_id, kb);
    assert.equal(message.data.message_id, r.body.message_id);
    assert.equal(message.data.session_id, r.body.session_id);
    assert.equal(message.data.query, 'Who founded the Orvella Observatory?');
    assert.equal(message.data.confidence, r.body.confidence);
    assert.equal(message.user_id, (await s.runtime.store.repo('chat_sessions').get(r.body.session_id))!.user_id);
    const again = events.length;
    await ask('Which comet did it discover?', { session_id: r.body.session_id });
    await until('chat.message of the follow-up', () => events.slice(again).some((e) => e.type === 'chat.message'));
    assert.deepEqual(events.slice(again).map((e) => e.type).filter((t) => t.startsWith('chat.')), ['chat.message'], 'no new session event for a continued session');
    const total = await s.runtime.store.repo('usage').find({ operation: 'chat' });
    assert.equal(total.length, queries);
    assert.equal(Math.round(total.reduce((n, x) => n + x.credits, 0) * 10) / 10, Math.round(queries * 0.1 * 10) / 10);
  });
});

function parseSse(text: string): { event: string | null; data: any }[] {
  return text
    .split(/\n\n/)
    .filter((b) => b.trim())
    .map((block) => {
      const event = block.match(/^event: (.*)$/m)?.[1] ?? null;
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      let parsed: any = data;
      try {
        parsed = JSON.parse(data);
      } catch {}
      return { event, data: parsed };
    });
}

const FILES = ['docling__multi_page.pdf', 'unstructured__norwich-city.txt', 'docling__wiki_duck.html', 'unstructured__book-war-and-peace-1p.txt'];

/** Questions about real documents, the document that answers each, and what the answer must say. */
const QUESTIONS: [string, string, RegExp][] = [
  ['Who patented the typewriter in 1868?', 'docling__multi_page.pdf', /Christopher Latham Sholes/],
  ['When did IBM introduce the electric typewriter?', 'docling__multi_page.pdf', /1935/],
  ['Which operating system was WordStar developed for?', 'docling__multi_page.pdf', /CP\/M/],
  ['How many league appearances did Iwan Roberts make during his career?', 'unstructured__norwich-city.txt', /647/],
  ['How many caps did Roberts win for Wales?', 'unstructured__norwich-city.txt', /fifteen caps/],
  ['What is a male duck called?', 'docling__wiki_duck.html', /drake/],
  ['Where does the word duck come from?', 'docling__wiki_duck.html', /Old English/],
  ['Who was Anna Pavlovna Scherer?', 'unstructured__book-war-and-peace-1p.txt', /maid of honor/],
];

describe('chat over corpus documents', { skip: hasCorpus ? false : 'no ../shared/corpus here' }, () => {
  let s: TestServer;
  let kb = '';
  const ids = new Map<string, string>();

  before(async () => {
    s = await startTestServer();
    for (const name of FILES) ids.set(name, await upload(s, name, fs.readFileSync(path.join(CORPUS, 'files', name))));
    kb = (await s.json('/api/knowledge-bases', { method: 'POST', json: { name: 'Corpus', settings: { retrieval: { top_k: 6, reranking: true } } } })).body.knowledge_base.id;
    const added = await s.json(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: [...ids.values()] } });
    assert.equal(added.body.added.length, FILES.length);
  });
  after(async () => {
    await s?.close();
  });

  test('answers quote the document that answers, every citation a real chunk of it', async () => {
    const kbDocs = [...ids.values()];
    let answered = 0;
    const misses: string[] = [];
    for (const [q, doc, expected] of QUESTIONS) {
      const r = await s.json('/api/chat', { method: 'POST', json: { message: q, knowledge_base_id: kb } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      console.log(`Q: ${q}\nA: ${r.body.message} (confidence ${r.body.confidence}; ${r.body.citations.map((c: any) => `${c.document_name} p${c.page}`).join(', ')})`);
      if (r.body.message === NOT_FOUND || !expected.test(r.body.message)) {
        misses.push(q);
        continue;
      }
      await assertGrounded(s, r.body, [ids.get(doc)!], kbDocs);
      assert.ok(r.body.citations.every((c: any) => c.document_id === ids.get(doc)), `${q}: only the answering document is quoted`);
      answered++;
    }
    console.log(`corpus chat: ${answered}/${QUESTIONS.length} answered from the right document`);
    assert.ok(answered >= QUESTIONS.length - 1, `missed: ${misses.join('; ')}`);
  });

  test('questions the corpus does not answer are refused', async () => {
    for (const q of ['What is the capital of Australia?', 'Who won the 2010 football World Cup?', 'How do I reset my router password?']) {
      const r = await s.json('/api/chat', { method: 'POST', json: { message: q, knowledge_base_id: kb } });
      console.log(`Q: ${q}\nA: ${r.body.message} (confidence ${r.body.confidence})`);
      assert.equal(r.body.message, NOT_FOUND, q);
      assert.deepEqual(r.body.citations, []);
      assert.ok(r.body.confidence < 0.3);
    }
  });

  test('deep mode answers both parts of a two-part question from two documents; the OpenAI client streams it', async () => {
    const q = 'Who patented the typewriter in 1868 and what is a male duck called?';
    const r = await s.json('/api/chat', { method: 'POST', json: { message: q, knowledge_base_id: kb, mode: 'deep' } });
    console.log(`deep: ${r.body.message}`);
    assert.match(r.body.message, /Sholes/);
    assert.match(r.body.message, /drake/);
    await assertGrounded(s, r.body, [ids.get('docling__multi_page.pdf')!], [...ids.values()]);
    await assertGrounded(s, r.body, [ids.get('docling__wiki_duck.html')!], [...ids.values()]);

    const client = new OpenAI({ apiKey: s.key, baseURL: `${s.url}/v1` });
    const stream = await client.chat.completions.create({ model: `kb:${kb}:deep`, messages: [{ role: 'user', content: q }], stream: true });
    let text = '';
    let citations: any[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason === 'stop') citations = (chunk as any).citations;
    }
    assert.equal(text, r.body.message, 'the same retrieval gives the same answer');
    assert.deepEqual(citations.map((c) => c.chunk_id), r.body.citations.map((c: any) => c.chunk_id));
  });
});
