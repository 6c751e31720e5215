/**
 * Chat over a knowledge base of corpus documents, offline (no LLM): a service is started here with a
 * throw-away data directory and no QUIRE_LLM_* variables, the documents below are uploaded and put into ONE
 * knowledge base, and every question of the set is asked through `POST /api/chat`. The questions are
 * phrased in words other than the documents', each with the answer string(s) it must contain and the
 * document that states it. Prints, overall and per question type:
 *   - correct: the answer contains an expected string and cites the right document;
 *   - refused: the "could not find" answer;
 *   - wrong: any other answer (one that does not contain the truth, or cites only other documents);
 *   a question whose `expect` is empty is answered by no document: its refusal counts as correct, any answer as wrong
 *   (a line of its own gives these apart);
 * and the calibration: among answers with confidence ≥ 0.8, the share that is correct; and the wall time of the chat calls
 * (p50, p95, max; the HTTP round trip included, one question at a time).
 * Nothing is cached; the corpus is read in place. Not part of the tests.
 *
 *   node --conditions=quire-source --import tsx bench/chat.ts [--only type,type] [--verbose] [--json out.json]
 *        [--set dev|heldout]   (heldout: bench/chat-heldout.ts, questions kept out of development)
 *        [--set fresh]   (bench/chat-fresh.ts: written for a final measurement; run blind once, then used for development)
 *        [--set blind]   (bench/chat-blind.ts: a second such set, new questions over the fresh set's documents, never tuned against)
 *        [--set blind2]  (bench/chat-blind2.ts: a third, over the fresh set's documents and eight no set had used)
 *        [--set blind3]  (bench/chat-blind3.ts: a fourth, over the blind2 documents and ten receipts of <corpus>/receipts/files)
 *        [--set blind4]  (bench/chat-blind4.ts: a fifth, over twelve table PDFs of <corpus>/tables and ten more receipts)
 *        [--set blind5]  (bench/chat-blind5.ts: a sixth, over six more table PDFs, six more receipts and eleven manifest documents of other kinds)
 *        [--set blind6]  (bench/chat-blind6.ts: a seventh, over the fourteen table PDFs, seven receipts and three manifest images no set had loaded)
 *        [--set blind7]  (bench/chat-blind7.ts: an eighth, over 24 documents of every kind few sets had loaded, six receipts among them; ten questions to refuse;
 *                         run blind twice, then studied from issue 30's seventh round on: a development set now)
 *        [--set blind8]  (bench/chat-blind8.ts: a ninth, over 24 documents of every kind, six receipts no set had named among them; ten questions to refuse)
 *        [--set blind9]  (bench/chat-blind9.ts: a tenth, over 24 documents of every kind few sets had loaded, six receipts no set had named among them; ten questions to refuse)
 *        [--set blind10] (bench/chat-blind10.ts: an eleventh, over 24 documents of every kind few sets had loaded, six receipts no set had named among them; ten questions to refuse)
 *        [--quiet]   (prints the totals only, never an answer: for the blind sets, whose answers are not to be read)
 *   The service answers only at confidence ≥ QUIRE_CHAT_MIN_CONFIDENCE (0.6 by default; the calling shell's value is passed
 *   on): with QUIRE_CHAT_MIN_CONFIDENCE=0 every answer is given, and the last line shows what each floor would keep.
 *        [--dump dir]   (writes each document's chunks as text to dir, to read while writing questions)
 *        [--trace]   (with --json: each question's row gets the answerer's trace, `trace`: the rule that answered, the quoted
 *                     candidates' retrieval rank and score, coverages, key term, rivals and whether they state the relation asked;
 *                     plugin option `trace` of answerer:offline)
 *        [--diagnose]   (for every answer not correct: the rank, in a plain search of the knowledge base (50 hits), of the first
 *                        chunk of the question's document that holds an expected string; not for the blind sets)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { jsonApi, startService, waitCompleted } from './service.js';
import type { Question } from './chat-question.js';

const { values: args } = parseArgs({ options: { json: { type: 'string' }, only: { type: 'string' }, verbose: { type: 'boolean' }, quiet: { type: 'boolean' }, dump: { type: 'string' }, diagnose: { type: 'boolean' }, trace: { type: 'boolean' }, mode: { type: 'string' }, set: { type: 'string', default: 'dev' } } });
const root = path.resolve(import.meta.dirname, '..');
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(root, '../shared/corpus'));
if (!fs.existsSync(path.join(corpus, 'manifest.json'))) {
  console.error(`no corpus at ${corpus} (QUIRE_CORPUS)`);
  process.exit(2);
}

/** The knowledge base: documents with a text layer or text of their own (no OCR), a few without questions. */
const DEV_DOCUMENTS = [
  'docling__2305.03393v1-pg9.pdf',
  'docling__redp5110_sampled.pdf',
  'docling__multi_page.pdf',
  'docling__amt_handbook_sample.pdf',
  'unstructured__multi-column-2p.pdf',
  'tabula__us-012.pdf',
  'invoice2data__AmazonWebServices.pdf',
  'invoice2data__oyo.pdf',
  'invoice2data__coolblue1.pdf',
  'invoice2data__QualityHosting.pdf',
  'pdflib__sample_form.pdf',
  'pdfjs__160F-2019.pdf',
  'docling__word_sample.docx',
  'docling__word_tables.docx',
  'unstructured__handbook-1p.docx',
  'docling__wiki_duck.html',
  'docling__kvp_data_example.html',
  'unstructured__example-10k-1p.html',
  'unstructured__norwich-city.txt',
  'unstructured__book-war-and-peace-1p.txt',
  'striprtf__Example_text.rtf',
  'unstructured__fake-doc.rtf',
  'docling__powerpoint_sample.pptx',
  'docling__csv-comma.csv',
];

// prettier-ignore
const DEV_QUESTIONS: Question[] = [
  { q: 'How much does the Amazon Web Services bill say must be paid?', type: 'how much', expect: ['$4.11'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'When was the AWS invoice issued?', type: 'when', expect: ['August 3'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'Which company was billed by Amazon Web Services?', type: 'who', expect: ['iViveLabs'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'What did Amazon charge for Glacier storage?', type: 'how much', expect: ['$2.22'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'What was the overall price of the OYO hotel stay?', type: 'how much', expect: ['1939'], doc: 'invoice2data__oyo.pdf' },
  { q: 'Who was the guest on the OYO payment receipt?', type: 'who', expect: ['Sanjay'], doc: 'invoice2data__oyo.pdf' },
  { q: 'On what date did the guest leave the OYO hotel?', type: 'when', expect: ['01/01/2018'], doc: 'invoice2data__oyo.pdf' },
  { q: 'In which city is the OYO resort?', type: 'where', expect: ['Chennai'], doc: 'invoice2data__oyo.pdf' },
  { q: 'What did the Coolblue order cost altogether?', type: 'how much', expect: ['717,97'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'When is the Coolblue invoice dated?', type: 'when', expect: ['19 april 2014'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'How much did the Nintendo handheld console cost on the Coolblue invoice?', type: 'how much', expect: ['189,00'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'In which city is Coolblue located?', type: 'where', expect: ['Rotterdam'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'Where is QualityHosting AG based?', type: 'where', expect: ['Gelnhausen'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'When did QualityHosting issue its invoice?', type: 'when', expect: ['7. Mai 2014'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'Which processor were the inference times measured on?', type: 'which', expect: ['AMD EPYC 7763'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'How many samples are in the FinTabNet dataset?', type: 'how many', expect: ['113k'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'How much quicker is inference with OTSL than with HTML?', type: 'how much', expect: ['2x'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'Who is the senior DB2 consultant on the Center of Excellence team?', type: 'who', expect: ['Jim Bainbridge'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'By what percentage did the average cost of a data breach go up in 2013?', type: 'percent', expect: ['15%'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'How many data breaches did the Identity Theft Resource Center count since 2005?', type: 'how many', expect: ['5000'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'In which city is the International Technical Support Organization?', type: 'where', expect: ['Rochester'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'What is the default public authority for newly created objects on IBM i?', type: 'what', expect: ['*CHANGE'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'Who invented the typewriter?', type: 'who', expect: ['Christopher Latham Sholes'], doc: 'docling__multi_page.pdf' },
  { q: 'When did IBM bring out the electric typewriter?', type: 'when', expect: ['1935'], doc: 'docling__multi_page.pdf' },
  { q: 'In what year did Microsoft release Word for DOS?', type: 'when', expect: ['1983'], doc: 'docling__multi_page.pdf' },
  { q: 'Which word processor was favoured by lawyers?', type: 'which', expect: ['WordPerfect'], doc: 'docling__multi_page.pdf' },
  { q: 'When did Google Docs come out?', type: 'when', expect: ['2006'], doc: 'docling__multi_page.pdf' },
  { q: 'What materials are wing nuts made from?', type: 'what', expect: ['aluminum alloy'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'What joins the two halves of a Boots self-locking nut?', type: 'what', expect: ['spring'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'By how much does the dense retriever beat BM25 in top-20 retrieval accuracy?', type: 'percent', expect: ['9%-19%'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'Who are the authors of the dense passage retrieval paper?', type: 'who', expect: ['Karpukhin'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'How many passages did the retrieval experiments index?', type: 'how many', expect: ['21 million'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'How many calories are in a portion of berries?', type: 'how many', expect: ['150'], doc: 'docling__word_sample.docx' },
  { q: 'What eyewear should you put on before swimming in the lake?', type: 'what', expect: ['sunglasses'], doc: 'docling__word_sample.docx' },
  { q: 'Who appoints the chapter 13 standing trustees?', type: 'who', expect: ['United States Trustee'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'Which act took daily case administration away from bankruptcy judges?', type: 'which', expect: ['Bankruptcy Reform Act of 1978'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'To whom does the standing trustee owe a fiduciary duty?', type: 'who', expect: ['bankruptcy estate'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'What is the name for a male duck?', type: 'what', expect: ['drake'], doc: 'docling__wiki_duck.html' },
  { q: 'On which continent are ducks absent?', type: 'where', expect: ['Antarctica'], doc: 'docling__wiki_duck.html' },
  { q: 'Who disproved the myth that a duck quack does not echo?', type: 'who', expect: ['Acoustics Research Centre', 'University of Salford'], doc: 'docling__wiki_duck.html' },
  { q: 'When was the myth about quacks not echoing disproved?', type: 'when', expect: ['2003'], doc: 'docling__wiki_duck.html' },
  { q: 'In which state is Galaxy Gaming incorporated?', type: 'where', expect: ['Nevada'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'How many common shares of Galaxy Gaming were outstanding?', type: 'how many', expect: ['23,718,968'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'What was the market value of the common equity owned by non-affiliates?', type: 'how much', expect: ['$70,923,698'], doc: 'unstructured__example-10k-1p.html' },
  { q: "Where are Galaxy Gaming's headquarters?", type: 'where', expect: ['Las Vegas'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'When was Iwan Roberts born?', type: 'when', expect: ['26 June 1968'], doc: 'unstructured__norwich-city.txt' },
  { q: 'How many international caps did Roberts win for Wales?', type: 'how many', expect: ['fifteen'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Which Norwich manager bought Roberts from Wolves?', type: 'who', expect: ['Mike Walker'], doc: 'unstructured__norwich-city.txt' },
  { q: 'How many league games did Roberts play over his career?', type: 'how many', expect: ['647'], doc: 'unstructured__norwich-city.txt' },
  { q: "Who was the first guest to arrive at Anna Pavlovna's reception?", type: 'who', expect: ['Vasili Kuragin'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'In what month and year does Anna Pavlovna Scherer hold her evening party?', type: 'when', expect: ['July, 1805'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'Who waited on the table at the restaurant?', type: 'who', expect: ['Quack Quackling'], doc: 'docling__kvp_data_example.html' },
  { q: 'How many people dined at the celebration?', type: 'how many', expect: ['guests: 5'], doc: 'docling__kvp_data_example.html' },
  { q: 'Which software do you need to make a PDF form fillable?', type: 'which', expect: ['Adobe Acrobat'], doc: 'pdflib__sample_form.pdf' },
  // added later (issue 12): more phrasings over the same documents, to study failures on
  { q: 'For which operating system was WordStar written?', type: 'which', expect: ['CP/M'], doc: 'docling__multi_page.pdf' },
  { q: 'When did the term word processor first appear?', type: 'when', expect: ['1960s'], doc: 'docling__multi_page.pdf' },
  { q: 'Which typesetting tool is popular with scientists?', type: 'which', expect: ['LaTeX'], doc: 'docling__multi_page.pdf' },
  { q: 'Which programs do screenwriters use?', type: 'which', expect: ['Final Draft', 'Celtx'], doc: 'docling__multi_page.pdf' },
  { q: 'When did IBM introduce the MT/ST?', type: 'when', expect: ['1964'], doc: 'docling__multi_page.pdf' },
  { q: 'Where was the code of the dense passage retriever published?', type: 'where', expect: ['github.com/facebookresearch/DPR'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'Which sparse methods does open-domain retrieval traditionally rely on?', type: 'which', expect: ['TF-IDF', 'BM25'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'What does the abbreviation MIPS mean?', type: 'what', expect: ['maximum inner product search'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'Which department took over administrative work from the bankruptcy courts?', type: 'which', expect: ['Department of Justice'], doc: 'unstructured__handbook-1p.docx' },
  { q: "Which section of title 11 sets out the standing trustee's main statutory duties?", type: 'which', expect: ['1302'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'What are the two general kinds of self-locking nuts?', type: 'what', expect: ['all-metal'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'What is added to a standard nut to make an elastic stop nut?', type: 'what', expect: ['fiber locking collar'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'What is the ticker symbol of Galaxy Gaming stock?', type: 'what', expect: ['GLXZ'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'On which marketplace is Galaxy Gaming common stock traded?', type: 'which', expect: ['OTCQB'], doc: 'unstructured__example-10k-1p.html' },
  { q: "What is Galaxy Gaming's phone number?", type: 'what', expect: ['(702) 939-3254'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'What is the IRS employer identification number of Galaxy Gaming?', type: 'what', expect: ['20-8143439'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'Which Italian cities does Anna Pavlovna call family estates of the Buonapartes?', type: 'which', expect: ['Genoa and Lucca'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: "Between which hours were guests invited to Anna Pavlovna's evening?", type: 'when', expect: ['between 7 and 10'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: "In which language were Anna Pavlovna's invitations written?", type: 'which', expect: ['French'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'On what day of the week does Prince Vasili call on Anna Pavlovna?', type: 'when', expect: ['Wednesday'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'In which city is Hernando Bedoya based?', type: 'where', expect: ['Rochester'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'How many records were exposed by data breaches since 2005?', type: 'how many', expect: ['600 million'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'How many built-in global variables does DB2 for i offer?', type: 'how many', expect: ['nine'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'Which special authority must a user have to grant the QIBM_DB_SECADM function usage?', type: 'which', expect: ['*SECADM'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'In which release of IBM i did VERIFY_GROUP_FOR_USER appear?', type: 'which', expect: ['7.2'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'Who manages security in the separation of duties example?', type: 'who', expect: ['Theresa'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'How many years ago did Jim Bainbridge start working for IBM?', type: 'how many', expect: ['30 years'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'How many goals did Roberts score in his record season at Huddersfield?', type: 'how many', expect: ['34 goals'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Which team beat Norwich on penalties in the play-off final?', type: 'who', expect: ['Birmingham'], doc: 'unstructured__norwich-city.txt' },
  { q: 'What is the AWS account number?', type: 'what', expect: ['296664039561'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: "What is Coolblue's VAT number?", type: 'what', expect: ['NL810433941B01'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'To whom is the QualityHosting invoice addressed?', type: 'who', expect: ['iViveLabs'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'What is the telephone number of QualityHosting?', type: 'what', expect: ['+49 6051 916 44 10'], doc: 'invoice2data__QualityHosting.pdf' },
];

const NOT_FOUND = /^I could not find this/;
const norm = (s: string) => s.replace(/\s*\[\d+\]/g, '').replace(/[*_`…]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

interface Manifest {
  files: { id: string; path: string }[];
}

/**
 * The question sets, each with its knowledge base. The held-out set: other questions over (mostly) other documents, to check
 * that a change generalises; the fresh set: questions nobody tuned for, over every corpus document with text of its own and
 * three scanned ones (through OCR); the blind sets: more such questions (see the top of this file).
 */
const SETS: Record<string, () => Promise<{ DOCUMENTS: string[]; QUESTIONS: Question[] }>> = {
  dev: async () => ({ DOCUMENTS: DEV_DOCUMENTS, QUESTIONS: DEV_QUESTIONS }),
  heldout: () => import('./chat-heldout.js'),
  fresh: () => import('./chat-fresh.js'),
  blind: () => import('./chat-blind.js'),
  blind2: () => import('./chat-blind2.js'),
  blind3: () => import('./chat-blind3.js'),
  blind4: () => import('./chat-blind4.js'),
  blind5: () => import('./chat-blind5.js'),
  blind6: () => import('./chat-blind6.js'),
  blind7: () => import('./chat-blind7.js'),
  blind8: () => import('./chat-blind8.js'),
  blind9: () => import('./chat-blind9.js'),
  blind10: () => import('./chat-blind10.js'),
};

async function main(): Promise<void> {
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) as Manifest;
  const byId = new Map(manifest.files.map((f) => [f.id, f]));
  const load = SETS[args.set!];
  if (!load) throw new Error(`--set ${Object.keys(SETS).join('|')}, not ${args.set}`);
  const { DOCUMENTS, QUESTIONS } = await load();
  for (const q of QUESTIONS) if (!DOCUMENTS.includes(q.doc)) throw new Error(`question on a document outside the knowledge base: ${q.doc}`);
  const key = `svc_${randomBytes(20).toString('hex')}`;
  // offline: no LLM, whatever the calling shell has
  const env: Record<string, string> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith('QUIRE_LLM_')) env[k] = '';
  // (--trace: the offline answerer appends each answer's trace to a file, read back after the questions)
  const traceFile = args.trace ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-chat-trace-')), 'trace.jsonl') : null;
  if (traceFile) {
    const options = JSON.parse(process.env.QUIRE_PLUGIN_OPTIONS || '{}') as Record<string, Record<string, unknown>>;
    env.QUIRE_PLUGIN_OPTIONS = JSON.stringify({ ...options, 'answerer:offline': { ...options['answerer:offline'], trace: traceFile } });
  }
  const svc = await startService(key, { prefix: 'quire-chat-bench-', env });
  const api = jsonApi(svc.base, key);
  try {
    const t0 = Date.now();
    const ids = new Map<string, string>(); // corpus id → document id
    for (const id of DOCUMENTS) {
      // a document of the manifest, or else one of the receipt scans in receipts/files or a table PDF of tables/ (neither in the manifest)
      const file = byId.has(id) ? path.join(corpus, byId.get(id)!.path) : id.startsWith('tables__') ? path.join(corpus, 'tables', id.slice('tables__'.length)) : path.join(corpus, 'receipts/files', id);
      if (!fs.existsSync(file)) throw new Error(`neither in the corpus manifest nor in receipts/files or tables/: ${id}`);
      const form = new FormData();
      form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
      const up = await api('/v1/documents', { method: 'POST', body: form });
      ids.set(id, up.id);
    }
    for (const [id, docId] of ids) await waitCompleted(api, docId, id);
    const kb = (await api('/api/knowledge-bases', { method: 'POST', json: { name: 'corpus' } })).knowledge_base.id as string;
    // (the batch endpoint takes at most 50 documents a call)
    const all = [...ids.values()];
    for (let i = 0; i < all.length; i += 50) await api(`/api/knowledge-bases/${kb}/documents/batch`, { method: 'POST', json: { document_ids: all.slice(i, i + 50) } });
    console.log(`${ids.size} documents parsed and added in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    if (args.dump) {
      fs.mkdirSync(args.dump, { recursive: true });
      for (const [id, docId] of ids) {
        const c = await api(`/v1/documents/${docId}/content?response=chunks`);
        fs.writeFileSync(path.join(args.dump, `${id}.txt`), c.chunks.map((x: any) => `--- chunk ${x.id} p${x.page}\n${x.content}`).join('\n'));
      }
      return; // --dump only writes the chunks: no question is asked
    }
    const only = args.only ? new Set(args.only.split(',')) : null;
    const docName = new Map([...ids].map(([id, docId]) => [docId, id]));
    const rows: { q: Question; verdict: 'correct' | 'refused' | 'wrong'; confidence: number; message: string; cited: string[]; answerType: string; rank?: number; trace?: unknown }[] = [];
    // the rank of the first chunk of the question's document that holds an expected string, in a plain search (0: not in the 50 hits)
    const rankOf = async (q: Question): Promise<number> => {
      const found = (await api('/v1/search', { method: 'POST', json: { query: q.q, collection_id: kb, limit: 50 } })).data as { document_id: string; content: string }[];
      const docs = new Set([q.doc, ...(q.also ?? [])]);
      const i = found.findIndex((h) => docs.has(docName.get(h.document_id) ?? '') && q.expect.some((e) => norm(h.content).includes(norm(e))));
      return i + 1;
    };
    const wall: number[] = [];
    for (const q of QUESTIONS) {
      if (only && !only.has(q.type)) continue;
      const t1 = performance.now();
      const a = await api('/api/chat', { method: 'POST', json: { message: q.q, knowledge_base_id: kb, ...(args.mode ? { mode: args.mode } : {}) } });
      wall.push(performance.now() - t1);
      const message = String(a.message);
      const cited = [...new Set((a.citations as { document_id: string }[]).map((c) => docName.get(c.document_id) ?? c.document_id))];
      const text = norm(message);
      const refused = NOT_FOUND.test(message);
      const verdict = !q.expect.length ? (refused ? 'correct' : 'wrong') : refused ? 'refused' : q.expect.some((e) => text.includes(norm(e))) && [q.doc, ...(q.also ?? [])].some((d) => cited.includes(d)) ? 'correct' : 'wrong';
      const rank = args.diagnose && verdict !== 'correct' ? await rankOf(q) : undefined;
      rows.push({ q, verdict, confidence: Number(a.confidence), message, cited, answerType: String(a.answer_type ?? (verdict === 'refused' ? 'none' : 'answer')), ...(rank !== undefined ? { rank } : {}) });
      if (rank !== undefined && !args.quiet) console.log(`${verdict.padEnd(7)} rank ${rank || '-'} [${q.type}] ${q.q}`);
      if (!args.quiet && (args.verbose || verdict === 'wrong')) console.log(`${verdict.padEnd(7)} ${Number(a.confidence).toFixed(2)} [${q.type}] ${q.q}\n        expected ${JSON.stringify(q.expect)} in ${q.doc}\n        got ${message.replace(/\s+/g, ' ').slice(0, 300)}\n        cited ${cited.join(', ')}`);
    }
    print(rows);
    // the wall time of each chat call, the HTTP round trip included (the questions asked one after another)
    const at = (p: number) => [...wall].sort((x, y) => x - y)[Math.min(wall.length - 1, Math.floor(p * wall.length))]!.toFixed(0);
    if (wall.length) console.log(`chat call wall ms: p50 ${at(0.5)}  p95 ${at(0.95)}  max ${at(1)}  (${wall.length} questions)`);
    if (args.diagnose) {
      const off = rows.filter((r) => r.rank !== undefined);
      const bucket = (r: (typeof off)[number]) => (!r.rank ? 'not in 50' : r.rank <= 5 ? 'top 5' : r.rank <= 10 ? '6-10' : '11-50');
      for (const v of ['refused', 'wrong']) {
        const counts = new Map<string, number>();
        for (const r of off.filter((x) => x.verdict === v)) counts.set(bucket(r), (counts.get(bucket(r)) ?? 0) + 1);
        console.log(`${v}: the answer's chunk ranks ${[...counts].map(([k, n]) => `${k} ${n}`).join(', ') || '-'}`);
      }
    }
    if (traceFile && fs.existsSync(traceFile)) {
      // one trace per answer, in the order asked: each row takes the first not yet taken of its question
      const traces = fs.readFileSync(traceFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { question: string });
      for (const row of rows) {
        const i = traces.findIndex((t) => t.question === row.q.q);
        if (i >= 0) row.trace = traces.splice(i, 1)[0];
      }
      fs.rmSync(path.dirname(traceFile), { recursive: true, force: true });
    }
    if (args.json) fs.writeFileSync(args.json, JSON.stringify(rows, null, 1));
  } finally {
    await svc.stop();
  }
}

function print(rows: { q: Question; verdict: string; confidence: number; answerType: string }[]): void {
  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(0)}%` : '-');
  const line = (label: string, rs: typeof rows) => {
    const c = rs.filter((r) => r.verdict === 'correct').length;
    const f = rs.filter((r) => r.verdict === 'refused').length;
    const w = rs.filter((r) => r.verdict === 'wrong').length;
    const hi = rs.filter((r) => r.confidence >= 0.8);
    const hiRight = hi.filter((r) => r.verdict === 'correct').length;
    console.log(`${label.padEnd(10)} ${String(rs.length).padStart(4)}  ${`${c} (${pct(c, rs.length)})`.padStart(10)}  ${`${f} (${pct(f, rs.length)})`.padStart(10)}  ${`${w} (${pct(w, rs.length)})`.padStart(10)}  ${`${hiRight}/${hi.length} (${pct(hiRight, hi.length)})`.padStart(14)}`);
  };
  console.log(`\n${'type'.padEnd(10)} ${'n'.padStart(4)}  ${'correct'.padStart(10)}  ${'refused'.padStart(10)}  ${'wrong'.padStart(10)}  ${'right@conf≥0.8'.padStart(14)}`);
  const types = [...new Set(rows.map((r) => r.q.type))];
  for (const t of types) line(t, rows.filter((r) => r.q.type === t));
  line('all', rows);
  const none = rows.filter((r) => !r.q.expect.length);
  if (none.length) {
    line('answerable', rows.filter((r) => r.q.expect.length > 0));
    line('to refuse', none); // correct: refused; wrong: answered
  }
  // per answer type (value, passage, none): a value is right when it is correct, a passage when it contains the answer and cites its document
  console.log(`\n${'answer'.padEnd(10)} ${'n'.padStart(4)}  ${'correct'.padStart(10)}  ${'refused'.padStart(10)}  ${'wrong'.padStart(10)}  ${'right@conf≥0.8'.padStart(14)}`);
  for (const t of [...new Set(rows.map((r) => r.answerType))].sort()) line(t, rows.filter((r) => r.answerType === t));
  // what a confidence floor (QUIRE_CHAT_MIN_CONFIDENCE) would keep: run with QUIRE_CHAT_MIN_CONFIDENCE=0 to see every answer's
  const floors = [0.5, 0.55, 0.6, 0.65, 0.7, 0.8].map((f) => {
    const kept = rows.filter((r) => r.verdict !== 'refused' && r.confidence >= f);
    return `≥${f}: ${kept.filter((r) => r.verdict === 'correct').length}/${kept.filter((r) => r.verdict === 'wrong').length}`;
  });
  console.log(`correct/wrong answers at confidence ${floors.join('  ')}`);
  console.log(`load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

await main();
