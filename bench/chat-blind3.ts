/**
 * The third blind question set of bench/chat.ts (`--set blind3`): a fourth set for the final measurement of
 * the offline chat answerer on questions nobody tuned for. Written on 2026-11-25 from the documents' chunk
 * text alone (`bench/chat.ts --set blind3 --dump dir`, which parses the documents and asks no question): no
 * question was put to the answerer while this set was written, the answerer was not run, and its code was
 * not read. The questions ask for facts that no question of the development, held-out, fresh, blind or
 * blind2 set asks for, at most two per document (three for the longest), phrased as a user would and in
 * words other than the documents' (questions on German, French, Dutch, Korean and Arabic documents are
 * asked in English). They mix what, which, how much, where, when, how many, percent and who, over prose,
 * tables and spreadsheets, slides, form fields, invoices and receipts. Every expected string occurs
 * verbatim (case-insensitive, whitespace collapsed) in one chunk of its document, and one of them in a
 * chunk of each document under `also` (documents that state the same fact).
 *
 * The knowledge base is the blind2 set's documents and ten receipt scans of `<corpus>/receipts/files`
 * (SROIE, every tenth one from sroie__105 to sroie__195; not in the corpus manifest), through OCR. Each
 * receipt has one question, on what a user would ask of a receipt (the total, the date, the shop, the
 * payment), and only on what the OCR text shows legibly; one of the blind2 receipts has one more.
 *
 * Do not tune the answerer against these questions, and do not read them one by one after a run: read only
 * the totals (run with --quiet). Once the answerer has been changed because of this set, it is no longer
 * blind.
 */
import type { Question } from './chat-question.js';
import { DOCUMENTS as BLIND2 } from './chat-blind2.js';

export const DOCUMENTS = [
  ...BLIND2,
  // receipt scans of <corpus>/receipts/files (not in the manifest), every tenth one
  'sroie__105.jpg',
  'sroie__115.jpg',
  'sroie__125.jpg',
  'sroie__135.jpg',
  'sroie__145.jpg',
  'sroie__155.jpg',
  'sroie__165.jpg',
  'sroie__175.jpg',
  'sroie__185.jpg',
  'sroie__195.jpg',
];

// prettier-ignore
export const QUESTIONS: Question[] = [
  // PDFs with a text layer
  { q: 'What is the title of the paper that compares OTSL and HTML for table structure?', type: 'what', expect: ['Optimized Table Tokenization for Table Structure Recognition'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'How long did inference take for the OTSL model with four encoder layers and two decoder layers?', type: 'how much', expect: ['1.22'], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: 'How many typical kinds of self-locking nuts does the aircraft hardware handbook limit itself to?', type: 'how many', expect: ['three typical kinds'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: 'When does the stainless steel self-locking nut start to lock?', type: 'when', expect: ['seated against a solid surface'], doc: 'docling__amt_handbook_sample.pdf' },
  { q: "What do the letters MT/ST stand for in IBM's 1964 machine?", type: 'what', expect: ['Magnetic Tape/Selectric Typewriter'], doc: 'docling__multi_page.pdf' },
  { q: 'In which decade did undo and redo arrive in word processors?', type: 'when', expect: ['1980s'], doc: 'docling__multi_page.pdf' },
  { q: 'Which tool is named as an example of AI grammar and style suggestions in today\'s word processors?', type: 'which', expect: ['Grammarly'], doc: 'docling__multi_page.pdf' },
  { q: 'Who wrote the Korean National Assembly brief on accident insurance payouts and COVID-19?', type: 'who', expect: ['김 창 호'], doc: 'docling__normal_4pages.pdf' },
  { q: 'How many diseases were in the first group of infectious diseases before the Korean law was amended?', type: 'how many', expect: ['6종'], doc: 'docling__normal_4pages.pdf' },
  { q: 'On what date did the WHO declare COVID-19 a pandemic, according to the Korean brief?', type: 'when', expect: ['3.11'], doc: 'docling__normal_4pages.pdf' },
  { q: 'Besides chart analysis, which field do the R and Python libraries support according to the Arabic article?', type: 'which', expect: ['التعلم الآلي'], doc: 'docling__right_to_left_01.pdf' },
  { q: 'What is the title of the Arabic article on R and Python?', type: 'what', expect: ['تحسين الإنتاجية وحل المشكلات'], doc: 'docling__right_to_left_01.pdf' },
  { q: 'How many years did Hernando Bedoya spend at the ITSO writing Redbooks?', type: 'how many', expect: ['nine years'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'Which CL command gives user HBEDOYA the right to manage RCAC rules in the Redpaper example?', type: 'which', expect: ['CHGFCNUSG'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'How much of a tax identification number may a bank teller see under a column mask?', type: 'what', expect: ['last four digits'], doc: 'docling__redp5110_sampled.pdf' },
  { q: 'What end-to-end accuracy did ORQA reach on open Natural Questions, as reported in the DPR paper?', type: 'percent', expect: ['33.3%'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'From what exact match score does performance on SQuAD v1.1 fall when open-domain QA is reduced to machine reading?', type: 'percent', expect: ['above 80%', '80%'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'What additional pretraining task does ORQA propose?', type: 'what', expect: ['inverse cloze task'], doc: 'unstructured__multi-column-2p.pdf' },
  { q: 'What is the number of the exhibit on how states implemented the 1 percent rule?', type: 'what', expect: ['B.4'], doc: 'tabula__us-012.pdf' },
  { q: 'Up to how many students could small South Dakota districts count under the statewide exception?', type: 'how many', expect: ['up to 2 students', '2 students'], doc: 'tabula__us-012.pdf' },
  { q: 'Where online can I get in touch with Amazon about my AWS account or bill?', type: 'where', expect: ['aws.amazon.com/contact-us'], doc: 'invoice2data__AmazonWebServices.pdf' },
  { q: 'What IFSC code is given for payments to Oravel Stays?', type: 'what', expect: ['HDFC0000003'], doc: 'invoice2data__oyo.pdf' },
  { q: 'For how many nights was the OYO room booked?', type: 'how many', expect: ['1 Night'], doc: 'invoice2data__oyo.pdf' },
  { q: 'How much did the iPad Air cost on the Coolblue invoice?', type: 'how much', expect: ['399,00'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'What customer number does Coolblue give Pino Bluebird?', type: 'what', expect: ['6669263'], doc: 'invoice2data__coolblue1.pdf' },
  { q: 'Who is named as chair in the footer of the QualityHosting invoice?', type: 'who', expect: ['Habermann'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'What is the monthly base fee for one Small Business StandardExchange 2010 unit at QualityHosting?', type: 'how much', expect: ['3,89'], doc: 'invoice2data__QualityHosting.pdf' },
  { q: 'In which city is the address filled in on the sample employee form?', type: 'where', expect: ['Timbuktu'], doc: 'pdflib__sample_form.pdf' },
  { q: 'What phone number is given for the emergency contact on the sample form?', type: 'what', expect: ['3947493728'], doc: 'pdflib__sample_form.pdf' },
  { q: 'The fancy fields form asks whether you can defeat enemies with what?', type: 'what', expect: ['one punch'], doc: 'pdflib__fancy_fields.pdf' },
  { q: "Which box of the character sheet is for the character's friends and factions?", type: 'which', expect: ['ALLIES & ORGANIZATIONS'], doc: 'pdflib__dod_character.pdf' },
  { q: 'How often do licensed cannabis producers have to file the duty and information return?', type: 'when', expect: ['each calendar month', 'calendar month'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'What security marking does the cannabis return carry once it is filled in?', type: 'what', expect: ['Protected B'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'Which personal information bank does the cannabis duty return refer to?', type: 'which', expect: ['CRA PPU 062'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'What does the deduction code FD stand for on the Luxembourg salary certificate?', type: 'what', expect: ['frais de déplacement'], doc: 'pdfjs__160F-2019.pdf' },
  { q: 'Which tax credit is abbreviated CIM on the Luxembourg wage certificate?', type: 'which', expect: ["crédit d'impôt monoparental"], doc: 'pdfjs__160F-2019.pdf' },
  { q: 'What should members write in the payment reference when they pay the CCC Salzburg fee?', type: 'what', expect: ['Mitgliedsnummer'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'In which country is CCC Salzburg based?', type: 'where', expect: ['Österreich'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'Which word labels the signature line of the signed German test form?', type: 'which', expect: ['Unterschrift'], doc: 'pdfjs__bug854315.pdf' },
  { q: 'How many seconds did the blind participant need according to the accessibility table?', type: 'how much', expect: ['1199 sec'], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  { q: 'What percentage does the accessibility table give for the Low Vision group of two participants?', type: 'percent', expect: ['98.3%'], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  { q: "Which words follow 'Lorem ipsum dolor sit amet' at the start of the lorem ipsum PDF?", type: 'what', expect: ['consectetur adipiscing elit'], doc: 'unstructured__loremipsum-flat.pdf' },
  // office, web, text and table documents
  { q: 'What is the first piece of advice for getting started with swimming in the summer activities document?', type: 'what', expect: ['try not to drown'], doc: 'docling__word_sample.docx', also: ['docling__legacy_sample.doc'] },
  { q: 'Where does the swimming happen in the summer activities document?', type: 'where', expect: ['in the lake'], doc: 'docling__legacy_sample.doc', also: ['docling__word_sample.docx'] },
  { q: 'In the Word table test, what does the merged cell in the first body row of the table with horizontal spans say?', type: 'what', expect: ['Merged Cell 1.1 1.2'], doc: 'docling__word_tables.docx' },
  { q: 'What heading sits above the list of tasks before release in the checkbox document?', type: 'what', expect: ['Paragraph with options'], doc: 'docling__docx_checkboxes.docx' },
  { q: 'According to the trustee handbook, the standing trustee is more than what?', type: 'what', expect: ['mere disbursing agent'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'Which section of the Code of Federal Regulations does the trustee handbook cite next to 11 U.S.C. § 321?', type: 'which', expect: ['58.6(a)(3)'], doc: 'unstructured__handbook-1p.docx' },
  { q: 'What are the column headings of the table in the emphasized-text Word file?', type: 'what', expect: ['Header Col 1', 'Header Col 2'], doc: 'unstructured__fake-doc-emphasized-text.doc' },
  { q: 'What caption introduces the table in the short RTF file?', type: 'what', expect: ['Table Example'], doc: 'unstructured__fake-doc.rtf' },
  { q: 'What line comes right after the hyperlink line at the top of the long RTF example?', type: 'what', expect: ['Another font'], doc: 'striprtf__Example_text.rtf' },
  { q: 'What is the female-like plumage that drakes moult into in summer called?', type: 'what', expect: ['eclipse'], doc: 'docling__wiki_duck.html' },
  { q: 'Which tribe do the diving ducks form?', type: 'which', expect: ['Aythyini'], doc: 'docling__wiki_duck.html' },
  { q: 'How many species of steamer duck can barely fly?', type: 'how many', expect: ['Three species'], doc: 'docling__wiki_duck.html' },
  { q: 'Which restaurant issued the table service order receipt?', type: 'which', expect: ['Docling'], doc: 'docling__kvp_data_example.html' },
  { q: "In which suite are Galaxy Gaming's principal executive offices?", type: 'where', expect: ['Ste. 305'], doc: 'unstructured__example-10k-1p.html' },
  { q: "Which item of Galaxy Gaming's 10-K covers risk factors?", type: 'which', expect: ['Item 1A'], doc: 'unstructured__example-10k-1p.html' },
  { q: 'In which town did Iwan Roberts grow up?', type: 'where', expect: ['Barmouth'], doc: 'unstructured__norwich-city.txt' },
  { q: 'How much did the FA fine Roberts for stamping on Kevin Muscat?', type: 'how much', expect: ['2,500'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Who succeeded Bruce Rioch as Norwich manager?', type: 'who', expect: ['Bryan Hamilton'], doc: 'unstructured__norwich-city.txt' },
  { q: "Who is coming to take Prince Vasili to the fete at the English ambassador's?", type: 'who', expect: ['daughter'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'What does Anna Pavlovna call Buonaparte in her opening words to the prince?', type: 'what', expect: ['Antichrist'], doc: 'unstructured__book-war-and-peace-1p.txt' },
  { q: 'Which country is the customer Linda Olsen from?', type: 'where', expect: ['Dominican Republic'], doc: 'docling__csv-comma.csv' },
  { q: 'When did Sheryl Baxter take out her subscription?', type: 'when', expect: ['2020-08-24'], doc: 'docling__csv-comma.csv' },
  { q: 'What is the Spearman correlation between the unstimulated CD161 CD8 T cell frequency and the Ki67 CD8 frequency?', type: 'what', expect: ['-0.285021097'], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: 'On Sheet2 of the test workbook, what is col-3 in the row where col-1 is 7?', type: 'what', expect: ['21'], doc: 'docling__xlsx_01.xlsx' },
  { q: 'What does the duck observations spreadsheet count each year?', type: 'what', expect: ['freshwater ducks per year'], doc: 'docling__legacy_sample.xls', also: ['docling__xlsx_05_table_with_title.xlsx'] },
  { q: "What were Zone LATAM's sales from January to June 2023?", type: 'how much', expect: ['6082'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What was Nestlé's operating profit in the first half of 2022?", type: 'how much', expect: ['6619'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'How much milk products and ice cream did Nestlé sell in the first half of 2023?', type: 'how much', expect: ['5418'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'Which question type is abbreviated FIL in the Blackboard test template?', type: 'which', expect: ['File response'], doc: 'unstructured__tests-example.xls' },
  { q: 'Which statement serves as the sample true/false question in the Blackboard example test?', type: 'which', expect: ['Bagpipes are awesome'], doc: 'unstructured__tests-example.xls' },
  { q: 'Which class label heads the first three columns of the table on the test table slide?', type: 'which', expect: ['Class1'], doc: 'docling__powerpoint_sample.pptx', also: ['docling__legacy_sample.ppt'] },
  { q: 'What does the second slide of the sample deck say it is about to introduce?', type: 'what', expect: ['introduce a list'], doc: 'docling__legacy_sample.ppt', also: ['docling__powerpoint_sample.pptx'] },
  { q: 'What is the heading of the first slide of the duck presentation with the charts?', type: 'what', expect: ['Quarterly Duck Survey'], doc: 'docling__pptx_chart.pptx' },
  { q: 'How many freshwater ducks does the duck survey presentation give for 2020?', type: 'how many', expect: ['130'], doc: 'docling__pptx_chart.pptx' },
  { q: 'Which colour follows Red in the first row of the colour table slide?', type: 'which', expect: ['Green'], doc: 'unstructured__fake-power-point-table.pptx' },
  { q: 'What does the text box in the bullet slide presentation say?', type: 'what', expect: ['Here is some text in a text box'], doc: 'unstructured__fake-power-point.ppt' },
  // scanned, through OCR
  { q: 'On what is the OCR test text meant to work, according to the sample page?', type: 'what', expect: ['all types of file format'], doc: 'tesstest__phototest.tif' },
  { q: 'Which author says he cannot remember his father ever hugging him?', type: 'who', expect: ['Walt Harrington'], doc: 'tesstest__8071_093.3B.tif' },
  { q: 'Where does Kathleen Kilpatrick work?', type: 'where', expect: ['Secretary of the Interior'], doc: 'tesstest__8071_093.3B.tif' },
  { q: 'Who are some of the authors of the DocLayNet paper?', type: 'who', expect: ['Christoph Auer', 'Peter Staar', 'Ahmed S. Nassar'], doc: 'docling__2206.01062.tif' },
  { q: 'By roughly how much do popular detection models trail the inter-annotator agreement on DocLayNet?', type: 'percent', expect: ['10%'], doc: 'docling__2206.01062.tif' },
  { q: 'How many hours of garden work does Robert Schneider AG bill?', type: 'how many', expect: ['28 Std'], doc: 'docling__qr_bill_example.jpg' },
  { q: 'What date is on the garden work bill from Robert Schneider AG?', type: 'when', expect: ['01.07.2020'], doc: 'docling__qr_bill_example.jpg' },
  // receipt scans, through OCR (one more question on a blind2 receipt, then the ten of receipts/files)
  { q: 'How much did the chopping board cost at MR DIY?', type: 'how much', expect: ['19.00'], doc: 'sroie__002.jpg' },
  { q: 'What GST rate was charged on the Sweet Forest Cafe bill?', type: 'percent', expect: ['6%'], doc: 'sroie__105.jpg' },
  { q: 'How much did the set of hoes cost at Gin Kee in Setapak?', type: 'how much', expect: ['23.32'], doc: 'sroie__115.jpg' },
  { q: 'On what date did Gin Kee sell the underground pipes?', type: 'when', expect: ['12/02/2018'], doc: 'sroie__125.jpg' },
  { q: 'Which contactor was bought from ASO Electrical Trading?', type: 'which', expect: ['FUJI CONTACTOR'], doc: 'sroie__135.jpg' },
  { q: "At which McDonald's branch was the 8.50 take-out of a Coke and a McChicken bought?", type: 'where', expect: ['Mahkota Cheras'], doc: 'sroie__145.jpg' },
  { q: "When was the McDonald's Rawang order placed?", type: 'when', expect: ['02/03/2018'], doc: 'sroie__155.jpg' },
  { q: 'Who is named as president on the receipt from Dako at Solaris Mont Kiara?', type: 'who', expect: ['Kang'], doc: 'sroie__165.jpg' },
  { q: 'On what date was the purchase at Popular Book Co. made?', type: 'when', expect: ['11/02/18'], doc: 'sroie__175.jpg' },
  { q: 'Which payment method was used at Super Seven Cash & Carry?', type: 'which', expect: ['VISA CARD'], doc: 'sroie__185.jpg' },
  { q: 'How much change did the customer get back at AEON Taman Maluri?', type: 'how much', expect: ['19.90'], doc: 'sroie__195.jpg' },
];
