/**
 * The blind question set of bench/chat.ts (`--set blind`): a second set for the final measurement of the
 * offline chat answerer on questions nobody tuned for. Written on 2026-11-25, after the fresh set and after
 * the answerer's development, from the documents' chunk text alone (`bench/chat.ts --set fresh --dump dir`):
 * no question of this set was put to the answerer while it was written, and the answerer was not run on it.
 * The questions ask for facts that no question of the development, held-out or fresh set asks for, at most
 * three per document, phrased as a user would and in words other than the documents' (questions on German,
 * French, Dutch, Korean and Arabic documents are asked in English). Every expected string occurs verbatim
 * (case-insensitive, whitespace collapsed) in one chunk of its document, and of each document under `also`.
 *
 * The knowledge base is the fresh set's: every corpus document with text of its own and three scanned ones.
 *
 * Do not tune the answerer against these questions, and do not read them one by one after a run: read only
 * the totals. Once the answerer has been changed because of this set, it is no longer blind.
 */
import type { Question } from './chat-question.js';
import { DOCUMENTS } from './chat-fresh.js';

export { DOCUMENTS };

// prettier-ignore
export const QUESTIONS: Question[] = [
  // PDFs with a text layer
  { q: 'How many attention heads did the best table model configuration have?', type: 'how many', expect: ['heads=8'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'Roughly how big is the PubTables-1M collection?', type: 'how many', expect: ['about 1M samples', '1M samples'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'Which transformer architecture were the OTSL and HTML tuning runs trained on?', type: 'which', expect: ['TableFormer'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'What does each stolen record with sensitive information cost a company on average?', type: 'how much', expect: ['$145'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'How long has Hernando Bedoya been working in the computing field?', type: 'how many', expect: ['28 years'], doc: 'docling__redp5110_sampled.pdf' },
  { q: "Which built-in global variable returns the connected client's IP address?", type: 'which', expect: ['CLIENT_IPADDR'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'Which company made the 1200, an office machine with a small screen and floppy disks?', type: 'which', expect: ['Wang'], doc: 'docling__multi_page.pdf' },
  { q: 'In what year was the typewriter patented?', type: 'when', expect: ['1868'], doc: 'docling__multi_page.pdf' },
  { q: 'Which dictation program is given as an example of speech-to-text?', type: 'which', expect: ['Dragon NaturallySpeaking'], doc: 'docling__multi_page.pdf' },
  { q: 'How many people in Korea had died of COVID-19 by 30 March 2020?', type: 'how many', expect: ['158명'], doc: 'docling__normal_4pages.pdf' },
  { q: 'What disease code does SARS have in the Korean disease classification?', type: 'what', expect: ['U04.9'], doc: 'docling__normal_4pages.pdf' },
  { q: 'How many diseases does the amended Korean infectious disease law put in the highest class?', type: 'how many', expect: ['17종'], doc: 'docling__normal_4pages.pdf' },
  { q: 'What is R good at according to the Arabic article?', type: 'what', expect: ['للرسم البياني', 'التحليل الإحصائي'], doc: 'docling__right_to_left_01.pdf' },
  { q: 'In how many spring variants do Boots self-locking nuts come?', type: 'how many', expect: ['three different spring styles'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'What is the only thing that will undo a Boots self-locking nut?', type: 'what', expect: ['wrench'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'What are the two pieces of a stainless steel self-locking nut?', type: 'what', expect: ['beveled locking shoulder', 'thread insert'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'How well does the BM25 baseline do in top-5 retrieval on Natural Questions?', type: 'percent', expect: ['42.9%'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'How accurate is the full question answering pipeline built on DPR, compared with ORQA?', type: 'percent', expect: ['41.5%'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'Which actor appears in the Lord of the Rings example of the retrieval paper?', type: 'who', expect: ['Sala Baker'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'About how many Ohio districts were allowed to go over the 1% cap in 2005-06?', type: 'how many', expect: ['~100'], doc: 'tabula__us-012.pdf' },
  { q: "In which state is the alternate assessment not based on alternate achievement standards?", type: 'where', expect: ['Missouri'], doc: 'tabula__us-012.pdf' },
  { q: 'When were the accountability interviews behind the 1 percent exhibit held?', type: 'when', expect: ['Fall 2004', 'Fall 2006'], doc: 'tabula__us-012.pdf' },
  { q: 'What is the number of the Amazon Web Services invoice?', type: 'what', expect: ['42183017'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'How much was billed for Amazon S3 on the AWS invoice?', type: 'how much', expect: ['$0.01'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'In which part of Hong Kong is the customer of the AWS bill located?', type: 'where', expect: ['Yuen Long'], doc: 'invoice2data__AmazonWebServices.pdf', also: ['invoice2data__QualityHosting.pdf'] },
  { q: 'What email address can OYO be contacted at?', type: 'what', expect: ['contactus@oyorooms.com'], doc: 'invoice2data__oyo.pdf' },
  { q: 'When did the guest arrive at the OYO hotel?', type: 'when', expect: ['31/12/2017'], doc: 'invoice2data__oyo.pdf' },
  { q: 'In which area of New Delhi is the registered office of Oravel Stays?', type: 'where', expect: ['Saket'], doc: 'invoice2data__oyo.pdf' },
  { q: 'Who is the customer on the Coolblue invoice?', type: 'who', expect: ['Pino Bluebird'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'What did the Mario Kart game cost in the Coolblue order?', type: 'how much', expect: ['44,99'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'On what date was the Coolblue amount paid through iDEAL?', type: 'when', expect: ['21 april 2015'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'What does QualityHosting charge when a direct debit bounces?', type: 'how much', expect: ['15,00 EUR'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'At which bank does QualityHosting hold its account?', type: 'which', expect: ['Kreissparkasse Gelnhausen'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'For which period are the QualityHosting Exchange fees billed?', type: 'when', expect: ['01.05.14-31.05.14'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'Which Acrobat 9 feature is used to create form fields?', type: 'which', expect: ['Form Wizard'], doc: 'pdflib__sample_form.pdf' },
  { q: 'What colour is the document message bar of a fillable PDF?', type: 'what', expect: ['purple'], doc: 'pdflib__sample_form.pdf' },
  { q: 'How is the emergency contact related to the employee on the sample form?', type: 'what', expect: ['Arch Rival'], doc: 'pdflib__sample_form.pdf' },
  { q: 'Which famous people can be chosen as favourite historical figure on the fancy fields form?', type: 'which', expect: ['Ada Lovelace', 'Marie Curie', 'Marcus Aurelius', 'Alexander Hamilton'], doc: 'pdflib__fancy_fields.pdf' },
  { q: "Which physical traits does the character sheet ask about for the character's looks?", type: 'what', expect: ['HEIGHT', 'WEIGHT', 'EYES'], doc: 'pdflib__dod_character.pdf' },
  { q: 'Which online CRA service can the cannabis return be submitted through?', type: 'which', expect: ['My Business Account'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'What is the street address of the Prince Edward Island Tax Centre?', type: 'where', expect: ['275 Pope Road'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'To whom can a person complain about how the CRA handles personal information?', type: 'who', expect: ['Privacy Commissioner of Canada'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'On the Luxembourg wage certificate, which kind of deduction is abbreviated FO?', type: 'what', expect: ["frais d'obtention"], doc: 'pdfjs__160F-2019.pdf' },
  { q: 'How may employers pass employee account statements to the direct tax administration?', type: 'what', expect: ['voie électronique'], doc: 'pdfjs__160F-2019.pdf' },
  { q: 'What does the letter R mark in the breakdown of pay on the Luxembourg certificate?', type: 'what', expect: ["rappels d'années antérieures"], doc: 'pdfjs__160F-2019.pdf' },
  { q: 'How much is the ordinary yearly CCC Salzburg membership without the hackerspace?', type: 'how much', expect: ['70€'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'Who is entitled to the reduced CCC Salzburg fee?', type: 'who', expect: ['SchülerInnen', 'StudentInnen', 'Arbeitslose', 'PensionistInnen'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'Which IRC channel does CCC Salzburg use?', type: 'which', expect: ['#chaossbg'], doc: 'pdfjs__bug1669099.pdf' },
  // office, web, text and table documents
  { q: 'What fruit is on the menu for a duck in the summer activities document?', type: 'which', expect: ['Blueberry, Strawberry, Cranberry'], doc: 'docling__word_sample.docx', also: ['docling__legacy_sample.doc'] },
  { q: 'What should you put on your skin against the sun before going swimming?', type: 'what', expect: ['sun cream'], doc: 'docling__word_sample.docx', also: ['docling__legacy_sample.doc'] },
  { q: 'Besides relaxing and looking around, what can you do while swimming in the lake?', type: 'what', expect: ['Paddle about', 'Enjoy summer warmth'], doc: 'docling__legacy_sample.doc', also: ['docling__word_sample.docx'] },
  { q: 'How is the first table of the Word table test described?', type: 'what', expect: ['A uniform table'], doc: 'docling__word_tables.docx' },
  { q: 'Which task was not yet done before the release?', type: 'what', expect: ['Documentation'], doc: 'docling__docx_checkboxes.docx' },
  { q: 'Apart from drinks, which breakfast items were selected?', type: 'which', expect: ['Scramble eggs', 'Bread', 'Croissant'], doc: 'docling__docx_checkboxes.docx' },
  { q: 'Does a standing trustee have to follow the practice tips of the handbook?', type: 'what', expect: ['not considered mandatory'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'Whom should the standing trustee tell when the handbook clashes with local court rules?', type: 'who', expect: ['United States Trustee'], doc: 'unstructured__handbook-1p.docx' },
  { q: "Which law do the handbook's statutory citations refer to unless stated otherwise?", type: 'which', expect: ['Bankruptcy Code', '11 U.S.C. § 101'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'What does the plain, unformatted sentence of the emphasized-text Word file say?', type: 'what', expect: ['I am a normal text'], doc: 'unstructured__fake-doc-emphasized-text.doc' },
  { q: 'What does the body text under the heading of the short RTF file say?', type: 'what', expect: ['My first paragraph'], doc: 'unstructured__fake-doc.rtf' },
  { q: 'Which sentence is repeated over and over as filler in the long RTF example?', type: 'what', expect: ['Some more text'], doc: 'striprtf__Example_text.rtf' },
  { q: 'How much does a call duck weigh?', type: 'how much', expect: ['less than 1 kg', '2.2 lb'], doc: 'docling__wiki_duck.html' },
  { q: 'Which university calls its sports teams the Ducks?', type: 'which', expect: ['University of Oregon'], doc: 'docling__wiki_duck.html' },
  { q: 'Which Finnish municipality has three black ducks on its coat of arms?', type: 'where', expect: ['Maaninka'], doc: 'docling__wiki_duck.html' },
  { q: 'What telephone number does the restaurant receipt give?', type: 'what', expect: ['(123) 456-7890'], doc: 'docling__kvp_data_example.html' },
  { q: 'Which items were ordered at the restaurant?', type: 'which', expect: ['Coffee', 'Lunch', 'Cake'], doc: 'docling__kvp_data_example.html' },
  { q: 'Which SEC filer category does Galaxy Gaming tick?', type: 'which', expect: ['Smaller reporting company'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'As of what date is the number of Galaxy Gaming shares outstanding given?', type: 'when', expect: ['March 28, 2022'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'Who knocked out Roberts\'s second front tooth with an elbow?', type: 'who', expect: ['Darran Rowbotham'], doc: 'unstructured__norwich-city.txt' },
  { q: 'How much did Leicester City pay Huddersfield for Roberts?', type: 'how much', expect: ['300,000'], doc: 'unstructured__norwich-city.txt' },
  { q: 'What was Roberts\'s body-fat ratio when he reported for pre-season training under Rioch?', type: 'percent', expect: ['17%'], doc: 'unstructured__norwich-city.txt' },
  { q: "Who delivered Anna Pavlovna's invitations?", type: 'who', expect: ['footman'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'Whose dispatch does Anna Pavlovna want news of from the prince?', type: 'who', expect: ['Novosiltsev'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'In which city was grippe a new word used only by the elite?', type: 'where', expect: ['St. Petersburg'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'In which city does Sheryl Baxter live?', type: 'where', expect: ['East Leonard'], doc: 'docling__csv-comma.csv' },
  { q: 'When did Preston Lozano take out his subscription?', type: 'when', expect: ['2021-04-23'], doc: 'docling__csv-comma.csv' },
  { q: 'Which company is Roy Berry with?', type: 'who', expect: ['Murillo-Perry'], doc: 'docling__csv-comma.csv' },
  { q: "Which kind of chart plots col-3 alone in the first spreadsheet?", type: 'which', expect: ['Line chart'], doc: 'docling__xlsx_01.xlsx' },
  { q: 'What number of freshwater ducks was recorded for 2019?', type: 'how many', expect: ['120'], doc: 'docling__xlsx_05_table_with_title.xlsx', also: ['docling__legacy_sample.xls', 'docling__pptx_chart.pptx'] },
  { q: 'How many freshwater ducks does the duck observations spreadsheet give for 2022?', type: 'how many', expect: ['170'], doc: 'docling__legacy_sample.xls', also: ['docling__xlsx_05_table_with_title.xlsx'] },
  { q: 'How much confectionery did Nestlé sell in the first half of 2023?', type: 'how much', expect: ['3694'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What was Nestlé's profit before taxes, associates and joint ventures for January to June 2023?", type: 'how much', expect: ['6565'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'What are the unallocated items in the segment results mostly made of?', type: 'what', expect: ['corporate expenses'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'Which question format is marked NUM in the Blackboard template?', type: 'what', expect: ['Numeric Response'], doc: 'unstructured__tests-example.xls' },
  { q: 'Whose original campus buildings does the sample essay question ask about?', type: 'who', expect: ['Henry Hornbostel'], doc: 'unstructured__tests-example.xls' },
  { q: 'Where are the full instructions for importing Blackboard test questions?', type: 'where', expect: ['cmu.edu/blackboard/evaluate'], doc: 'unstructured__tests-example.xls' },
  { q: 'How many freshwater ducks did the quarterly duck survey report for 2022?', type: 'how many', expect: ['175'], doc: 'docling__pptx_chart.pptx' },
  { q: 'What type of chart shows the quarterly revenue?', type: 'which', expect: ['Bar 3D chart', 'Bar 3D'], doc: 'docling__pptx_chart.pptx' },
  { q: 'What is written in the presenter notes of slide three?', type: 'what', expect: ['Final notes on the third slide'], doc: 'docling__powerpoint_sample.pptx' },
  { q: 'What is the heading of the second slide in the sample deck?', type: 'what', expect: ['Second slide title'], doc: 'docling__legacy_sample.ppt', also: ['docling__powerpoint_sample.pptx'] },
  { q: 'What is the title of the slide with the colour grid?', type: 'what', expect: ['A Slide with a Table'], doc: 'unstructured__fake-power-point-table.pptx' },
  { q: 'What sets the text of the first bullet on the bullet slide?', type: 'what', expect: ['_TextFrame.text'], doc: 'unstructured__fake-power-point.ppt' },
  // scanned, through OCR
  { q: 'Which animal leaps over the lazy fox in the OCR sample text?', type: 'which', expect: ['brown dog'], doc: 'tesstest__phototest.tif' },
  { q: 'What kind of package is Docling delivered as?', type: 'what', expect: ['self contained package'], doc: 'docling__ocr_test.pdf' },
  { q: 'Which corporation did Robert Kilpatrick chair?', type: 'which', expect: ['CIGNA'], doc: 'tesstest__8071_093.3B.tif' },
  { q: 'Which motivational speaker was assembling a tricycle for his son?', type: 'who', expect: ['Zig Ziglar', 'Ziglar'], doc: 'tesstest__8071_093.3B.tif' },
  { q: 'How old was Kathleen Kilpatrick when her father consoled her?', type: 'how many', expect: ['six years old'], doc: 'tesstest__8071_093.3B.tif' },
];
