/**
 * The second blind question set of bench/chat.ts (`--set blind2`): a third set for the final measurement of
 * the offline chat answerer on questions nobody tuned for. Written on 2026-11-25 from the documents' chunk
 * text alone (`bench/chat.ts --set blind2 --dump dir`, which parses the documents and asks no question): no
 * question was put to the answerer while this set was written, the answerer was not run, and its code was
 * not read. The questions ask for facts that no question of the development, held-out, fresh or blind set
 * asks for, at most three per document, phrased as a user would and in words other than the documents'
 * (questions on German, French, Dutch, Korean and Arabic documents are asked in English). They mix who,
 * when, where, how much, how many, percent, which and what, over prose, tables and spreadsheets, form
 * fields, invoice and receipt totals and dates, and titles. Every expected string occurs verbatim
 * (case-insensitive, whitespace collapsed) in one chunk of its document, and one of them in a chunk of each
 * document under `also` (documents that state the same fact).
 *
 * The knowledge base is the fresh set's documents and eight that no earlier set used: a multi-page PDF, a
 * table with multi-row cells, a flat lorem-ipsum PDF, and five images through OCR (a scanned paper page, a
 * Swiss QR bill, three SROIE receipts). Questions on OCR'd images ask only what the OCR text shows legibly.
 *
 * Do not tune the answerer against these questions, and do not read them one by one after a run: read only
 * the totals (run with --quiet). Once the answerer has been changed because of this set, it is no longer
 * blind.
 */
import type { Question } from './chat-question.js';
import { DOCUMENTS as FRESH } from './chat-fresh.js';

export const DOCUMENTS = [
  ...FRESH,
  // documents no other set has used
  'docling__nemotron_multipage.pdf',
  'unstructured__table-multi-row-column-cells.pdf',
  'unstructured__loremipsum-flat.pdf',
  'docling__2206.01062.tif',
  'docling__qr_bill_example.jpg',
  'sroie__000.jpg',
  'sroie__001.jpg',
  'sroie__002.jpg',
];

// prettier-ignore
export const QUESTIONS: Question[] = [
  // PDFs with a text layer
  { q: 'How many seconds did inference take for the HTML model with six encoder and six decoder layers?', type: 'how much', expect: ['5.39'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'What clock speed does the processor used for the timing measurements run at?', type: 'how much', expect: ['2.45 GHz'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'From what size up does the bellows-style Boots nut come?', type: 'what', expect: ['No. 8'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'Which nut does the handbook use as the example of the fiber insert kind?', type: 'which', expect: ['elastic stop nut'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'In what year did WordStar come out?', type: 'when', expect: ['1978'], doc: 'docling__multi_page.pdf' },
  { q: 'Which free open-source word processors appeared in the early 2000s?', type: 'which', expect: ['OpenOffice', 'LibreOffice'], doc: 'docling__multi_page.pdf' },
  { q: 'What code does MERS have in the Korean classification of diseases?', type: 'what', expect: ['U19.9'], doc: 'docling__normal_4pages.pdf' },
  { q: 'What issue number is the Korean brief on COVID-19 and accident insurance?', type: 'what', expect: ['1695'], doc: 'docling__normal_4pages.pdf' },
  { q: 'What is the data type of the CLIENT_PORT global variable?', type: 'what', expect: ['INTEGER'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'In what year is the IBM Redpaper on row and column access control copyrighted?', type: 'when', expect: ['2014'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'Which three things should a security policy deal with at the very least?', type: 'what', expect: ['confidentiality', 'integrity', 'availability'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'What kinds of advanced analysis can programmers do with R and Python according to the Arabic article?', type: 'what', expect: ['النمذجة الإحصائية', 'تحليل البيانات الكبيرة'], doc: 'docling__right_to_left_01.pdf' },
  { q: 'Which university is Danqi Chen affiliated with in the retrieval paper?', type: 'where', expect: ['Princeton'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'What is the arXiv identifier of the dense passage retrieval paper?', type: 'what', expect: ['2004.04906'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'How many South Dakota districts were granted exceptions to the 1 percent cap based on 2005-06 testing?', type: 'how many', expect: ['14'], doc: 'tabula__us-012.pdf' },
  { q: 'Below what enrolment did South Dakota districts get an automatic waiver?', type: 'how many', expect: ['200 students'], doc: 'tabula__us-012.pdf' },
  { q: 'What street address is given for the AWS service provider?', type: 'where', expect: ['410 Terry Ave'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'In which currency are all the charges on the AWS invoice?', type: 'which', expect: ['US Dollars'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'How did the guest pay for the OYO stay?', type: 'what', expect: ['Cash at Hotel'], doc: 'invoice2data__oyo.pdf' },
  { q: 'Which OYO property did Sanjay stay at?', type: 'which', expect: ['OYO 4189'], doc: 'invoice2data__oyo.pdf' },
  { q: 'What is the invoice number on the Coolblue bill?', type: 'what', expect: ['993548900'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'How much did the Coolblue order come to before VAT?', type: 'how much', expect: ['593,36'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'What is the number of the QualityHosting invoice?', type: 'what', expect: ['30064443'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'What is the monthly base fee for one Small Business QualityExchange 2010 mailbox at QualityHosting?', type: 'how much', expect: ['5,39'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'What work phone number was entered on the sample form?', type: 'what', expect: ['0987654321'], doc: 'pdflib__sample_form.pdf' },
  { q: 'Which Acrobat tool lets you add text to a flat form?', type: 'which', expect: ['Typewriter'], doc: 'pdflib__sample_form.pdf' },
  { q: 'What power level does the fancy fields form ask about?', type: 'how many', expect: ['9000'], doc: 'pdflib__fancy_fields.pdf' },
  { q: "Which section of the character sheet is for the character's life story?", type: 'which', expect: ['BACKSTORY'], doc: 'pdflib__dod_character.pdf' },
  { q: 'What is the number of the cannabis duty and information return form?', type: 'what', expect: ['B300'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'The cannabis return asks whether you will pay within how many business days?', type: 'how many', expect: ['5 business days'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'What reference number does the Luxembourg wage certificate template carry?', type: 'what', expect: ['FR-2019-181312'], doc: 'pdfjs__160F-2019.pdf' },
  { q: 'What does the deduction code CE mean on the Luxembourg salary certificate?', type: 'what', expect: ['charges extraordinaires'], doc: 'pdfjs__160F-2019.pdf' },
  { q: 'What is the full name of the association that runs CCC Salzburg?', type: 'what', expect: ['Koexistenz von Mensch und Maschine'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'What website does CCC Salzburg have?', type: 'what', expect: ['cccsbg.at'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'Which tool bundles PDF conversion to JSON and Markdown into one package?', type: 'which', expect: ['Docling'], doc: 'docling__nemotron_multipage.pdf', also: ['docling__ocr_test.pdf'] },
  { q: 'What percentage does the accessibility table give for the Mobility group?', type: 'percent', expect: ['95.4%'], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  { q: 'What percentage is reported for the blind participant in the accessibility table?', type: 'percent', expect: ['34.5%'], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  { q: 'How many seconds does the accessibility table list for the Dexterity group?', type: 'how much', expect: ['1672.1'], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  { q: 'What are the first words of the lorem ipsum PDF?', type: 'what', expect: ['Lorem ipsum dolor sit amet'], doc: 'unstructured__loremipsum-flat.pdf' },
  // office, web, text and table documents
  { q: 'Which country is the customer Preston Lozano in?', type: 'where', expect: ['Djibouti'], doc: 'docling__csv-comma.csv' },
  { q: 'On what date did Roy Berry subscribe?', type: 'when', expect: ['2020-03-25'], doc: 'docling__csv-comma.csv' },
  { q: 'Which customer works for Dominguez, Mcmillan and Donovan?', type: 'who', expect: ['Olsen'], doc: 'docling__csv-comma.csv' },
  { q: 'Which breakfast dish was left unticked in the list of services?', type: 'which', expect: ['Porridge'], doc: 'docling__docx_checkboxes.docx' },
  { q: 'Which drinks were not chosen in the breakfast options?', type: 'which', expect: ['Milk'], doc: 'docling__docx_checkboxes.docx' },
  { q: 'What seating number is on the restaurant order receipt?', type: 'which', expect: ['13'], doc: 'docling__kvp_data_example.html' },
  { q: 'Besides sunglasses and sun cream, what else should you not forget before a swim in the lake?', type: 'what', expect: ['drink water'], doc: 'docling__legacy_sample.doc', also: ['docling__word_sample.docx'] },
  { q: 'What does the author of the summer activities document personally like to eat?', type: 'what', expect: ['leaves'], doc: 'docling__word_sample.docx', also: ['docling__legacy_sample.doc'] },
  { q: 'What kind of shape contains text on the second slide of the sample deck?', type: 'what', expect: ['rectangle'], doc: 'docling__legacy_sample.ppt', also: ['docling__powerpoint_sample.pptx'] },
  { q: "Which items are listed under 'Some info' in the sample presentation?", type: 'which', expect: ['Item A', 'Item B'], doc: 'docling__powerpoint_sample.pptx', also: ['docling__legacy_sample.ppt'] },
  { q: 'How many freshwater ducks were counted in 2021?', type: 'how many', expect: ['150'], doc: 'docling__legacy_sample.xls', also: ['docling__xlsx_05_table_with_title.xlsx', 'docling__pptx_chart.pptx'] },
  { q: 'What is the heading of the spreadsheet with the yearly freshwater duck counts?', type: 'what', expect: ['Duck Observations'], doc: 'docling__xlsx_05_table_with_title.xlsx', also: ['docling__legacy_sample.xls'] },
  { q: 'How many saltwater ducks did the survey record for 2020?', type: 'how many', expect: ['95'], doc: 'docling__pptx_chart.pptx' },
  { q: 'What is the title of the bar chart in the duck survey presentation?', type: 'what', expect: ['Wild Duck Observations by Year'], doc: 'docling__pptx_chart.pptx' },
  { q: 'Which order of birds do ducks belong to?', type: 'which', expect: ['Anseriformes'], doc: 'docling__wiki_duck.html' },
  { q: 'Where does the paradise shelduck live?', type: 'where', expect: ['New Zealand'], doc: 'docling__wiki_duck.html' },
  { q: 'Which table of the Word table test has all sorts of merged and empty cells?', type: 'which', expect: ['all kinds of spans'], doc: 'docling__word_tables.docx' },
  { q: "In the first sheet of the test workbook, what is the 'third' value in the row where 'first' is 5?", type: 'what', expect: ['-3'], doc: 'docling__xlsx_01.xlsx' },
  { q: 'On Sheet2, what is the col-4 value in the row where col-1 is 8?', type: 'what', expect: ['32'], doc: 'docling__xlsx_01.xlsx' },
  { q: "What is the street address of Galaxy Gaming's principal executive offices?", type: 'where', expect: ['6480 Cameron Street'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'Which item of the Galaxy Gaming 10-K deals with mine safety disclosures?', type: 'which', expect: ['Item 4'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'Where was Iwan Roberts born?', type: 'where', expect: ['Bangor'], doc: 'unstructured__norwich-city.txt' },
  { q: 'When did Roberts go on loan to Cambridge United?', type: 'when', expect: ['March 2005'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Who took over from Andy Hessenthaler as Gillingham manager?', type: 'who', expect: ['Stan Ternent'], doc: 'unstructured__norwich-city.txt' },
  { q: "Where is Prince Vasili due to show up later that evening?", type: 'where', expect: ["English ambassador"], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'What name does Anna Pavlovna sign her invitations with?', type: 'who', expect: ['Annette Scherer'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'What is in the second row, second column of the table in the short RTF file?', type: 'what', expect: ['Row 2, Cell 2'], doc: 'unstructured__fake-doc.rtf' },
  { q: 'Which colour is in the middle column of the row that begins with Tangerine?', type: 'which', expect: ['Pink'], doc: 'unstructured__fake-power-point-table.pptx' },
  { q: 'What is the title of the slide explaining how to add bullets?', type: 'what', expect: ['Adding a Bullet Slide'], doc: 'unstructured__fake-power-point.ppt' },
  { q: 'Under which chapter of the bankruptcy code are the cases supervised by standing trustees?', type: 'which', expect: ['chapter 13'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'Under which section of title 28 is the trustee Handbook issued?', type: 'which', expect: ['586'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'What does the question format FIB_PLUS mean in the Blackboard template?', type: 'what', expect: ['Multiple Fill in the Blank'], doc: 'unstructured__tests-example.xls' },
  { q: 'What comes first in the sample question about order of operations?', type: 'what', expect: ['Parentheses'], doc: 'unstructured__tests-example.xls' },
  { q: 'What sales did Zone EUR make in the first half of 2023, in millions of CHF?', type: 'how much', expect: ['9467'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'What was the underlying trading operating profit of PetCare from January to June 2022?', type: 'how much', expect: ['1635'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'What is the Spearman correlation between 1Freq pDCfrequencyUnstim and 1Freq CD161CD8TfrequencyUnstim?', type: 'what', expect: ['0.312877946'], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: 'How strongly are the unstimulated basophil CREB and basophil STAT5 readings correlated?', type: 'what', expect: ['0.494110921'], doc: 'unstructured__csv-with-long-lines.csv' },
  // scanned, through OCR
  { q: 'What is the sample page of 12 point text meant to test?', type: 'what', expect: ['ocr code'], doc: 'tesstest__phototest.tif' },
  { q: 'What is the title of the book by the clinical psychologist about successful families?', type: 'what', expect: ['Back to the Family'], doc: 'tesstest__8071_093.3B.tif' },
  { q: 'In which state did a mother use a shoulder squeeze as a secret code for her children?', type: 'where', expect: ['Utah'], doc: 'tesstest__8071_093.3B.tif' },
  { q: 'Who is the pastor who hears children wish their dad would show his love?', type: 'who', expect: ['Kenneth Meade'], doc: 'tesstest__8071_093.3B.tif' },
  { q: 'What is the full title of the DocLayNet paper?', type: 'what', expect: ['A Large Human-Annotated Dataset'], doc: 'docling__2206.01062.tif' },
  { q: 'In which format is the DocLayNet data set provided?', type: 'which', expect: ['COCO'], doc: 'docling__2206.01062.tif' },
  { q: 'In which city was the conference at which DocLayNet was presented held?', type: 'where', expect: ['Washington'], doc: 'docling__2206.01062.tif' },
  { q: 'How much has to be paid on the Robert Schneider AG bill for garden work?', type: 'how much', expect: ['3 949.75', '3°949.75'], doc: 'docling__qr_bill_example.jpg' },
  { q: 'What VAT rate is applied on the garden work bill?', type: 'percent', expect: ['7.7%'], doc: 'docling__qr_bill_example.jpg' },
  { q: 'Who is the garden work bill from Robert Schneider AG addressed to?', type: 'who', expect: ['Pia Rutschmann'], doc: 'docling__qr_bill_example.jpg' },
  { q: 'What was bought on the cash bill from the Taman Daya shop?', type: 'what', expect: ['MODELLING CLAY'], doc: 'sroie__000.jpg' },
  { q: 'Who was the cashier on the receipt for the modelling clay?', type: 'who', expect: ['MANTIS'], doc: 'sroie__000.jpg' },
  { q: 'On what date was the modelling clay bought?', type: 'when', expect: ['25/12/2018'], doc: 'sroie__000.jpg' },
  { q: 'How much did the table lamp cost at Indah Gift & Home?', type: 'how much', expect: ['55.90'], doc: 'sroie__001.jpg' },
  { q: 'What discount was given on the Indah Gift & Home receipt?', type: 'percent', expect: ['10.00%'], doc: 'sroie__001.jpg' },
  { q: 'On what date was the Indah Gift & Home receipt issued?', type: 'when', expect: ['19/10/2018'], doc: 'sroie__001.jpg' },
  { q: 'How much change did the customer get back at MR DIY?', type: 'how much', expect: ['16.10'], doc: 'sroie__002.jpg' },
  { q: 'On what date was the MR DIY purchase made?', type: 'when', expect: ['12-01-19'], doc: 'sroie__002.jpg' },
  { q: 'Within how many days can goods bought at MR DIY be exchanged?', type: 'how many', expect: ['7 DAYS'], doc: 'sroie__002.jpg' },
];
