import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { suiteKnowledgeBase } from '../helpers/chat-kb.js';
import type { TestServer } from '../helpers/server.js';

/**
 * A question may describe its document by its kind ("the RTF memo") or its language ("the German letter") in words the document
 * never writes. Chat retrieval searches the documents a question describes on their own when the first searches found nothing of
 * them, and the answerer takes their chunks as the described document's: other documents that say the question's words more
 * often no longer crowd it out, nor answer in its place.
 */

const DEPOTS = ['Northgate', 'Eastbrook', 'Southmere', 'Westfield', 'Highcliff', 'Lowmoor', 'Redhill', 'Ashford', 'Millbank', 'Oakridge'];
/** notes of ten depots, each saying the question's words several times, each with its own opening hour */
const depotNote = (name: string, i: number) =>
  [
    `Opening of the ${name} warehouse`,
    '',
    `The ${name} warehouse opens at ${8 + (i % 3)}:00 on weekdays. When the warehouse opens, the loading bays of the warehouse open too.`,
    '',
    `The memo of the ${name} warehouse team says the warehouse stays open until the evening shift ends.`,
  ].join('\n');
/** the memo the question describes by its kind: it never says "memo" or "RTF" */
const MEMO = String.raw`{\rtf1\ansi\deff0 {\fonttbl {\f0 Helvetica;}}
\f0\fs24 Kestrel depot\par
The Kestrel warehouse opens at 6:30 every morning, Monday to Friday.\par
Drivers report to the gate office first.\par
}`;
/** a letter the question describes by its language: German, no English word of the question in it */
const LETTER = [
  'Sehr geehrte Damen und Herren,',
  '',
  'die Lieferung der bestellten Regale erfolgt am Dienstag durch die Spedition Brenner. Bitte sorgen Sie dafür, dass die Zufahrt frei ist und die Ware von einer Person angenommen wird.',
  '',
  'Mit freundlichen Grüßen, Ihr Team der Tischlerei Haas',
].join('\n');

describe('chat: the document a question describes by its kind or language', () => {
  let s: TestServer;
  const chat = suiteKnowledgeBase();
  const { ask, cites } = chat;

  before(async () => {
    s = await startTestServer();
    await chat.open(s, 'Depots', [...DEPOTS.map((n, i) => [`${n.toLowerCase()}-note.txt`, depotNote(n, i)] as [string, string]), ['kestrel-memo.rtf', MEMO], ['haas.txt', LETTER]]);
  });

  after(async () => {
    await s?.close();
  });

  test('"the RTF memo": its chunk is found and answers, though ten notes say the question\'s words more', async () => {
    const a = await ask('When does the warehouse open according to the RTF memo?');
    assert.notEqual(a.answer_type, 'none', a.message);
    assert.match(a.message, /6:30/);
    assert.ok(cites(a, 'kestrel-memo.rtf'), a.message);
    for (const n of DEPOTS) assert.ok(!cites(a, `${n.toLowerCase()}-note.txt`), a.message);
  });

  test('"the German letter": no English note answers for it (the answerer reads no German: it refuses)', async () => {
    const a = await ask('Which carrier delivers the shelves according to the German letter?');
    assert.ok(a.answer_type === 'none' || cites(a, 'haas.txt'), a.message);
    for (const n of DEPOTS) assert.ok(!cites(a, `${n.toLowerCase()}-note.txt`), a.message);
  });
});
