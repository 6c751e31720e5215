/**
 * The ninth blind question set of bench/chat.ts (`--set blind8`). Written on 2026-11-29 from the chunk text alone (the
 * output of `bench/chat.ts --set blind8 --dump dir`, which parses the documents and asks no question): no question was put
 * to the answerer while the set was written, no answer was read, and the answerer's code was not read. Its 24 documents
 * mirror what users upload: prose PDFs (an article on the history of the word processor, a page of a table-recognition
 * paper, a two-column aircraft handbook page and a four-page scan rotated page by page, through OCR), forms (a prefilled
 * HR AcroForm and a German club membership form), invoices (the OYO hotel receipt as an image, through OCR, and the Dutch
 * Coolblue invoice), four table PDFs of `<corpus>/tables` (an EIB evaluation, a student survey, an intellectual property
 * enforcement report and a fuel economy report), office files (a Word document, a workbook with a titled table, a legacy
 * Excel quiz template, a CSV of customers and a slide deck), a scanned magazine page through OCR, and six SROIE receipts
 * of `<corpus>/receipts/files` that no earlier set names (a hardware shop, a builders' merchant, a restaurant, two branches
 * of one minimarket chain and a hypermarket). The receipts had never been loaded, the table PDFs and the rotated scan once;
 * the other documents had been loaded by several sets, and their questions go to what those sets had not asked (each
 * question was checked by a script against the earlier sets' questions on the same document: no same expected string, no
 * near-identical wording). The questions ask, in other words than the documents', for dates, amounts, counts,
 * names, identifiers (GSTIN, IBAN, serial, customer and invoice numbers), table cells (row × column), reasons, titles and
 * labels in Dutch, German and Malay; none repeats a question of an earlier set. Every expected string occurs
 * (case-insensitive, whitespace collapsed) in one chunk of its document, as dumped (checked with a script over the dump).
 * The last ten questions have `expect: []`: their answer is in none of the documents (checked by searching the dump), so
 * the answer must be a refusal; `doc` names the document nearest in topic. bench/chat.ts counts such a refusal as
 * "refused" and any other answer as "wrong".
 */
import type { Question } from './chat-question.js';

export const DOCUMENTS = [
  // prose PDFs: an article, a paper page, a two-column handbook page, a rotated four-page scan (through OCR)
  'docling__multi_page.pdf',
  'docling__2305.03393v1-pg9.pdf',
  'docling__amt_handbook_sample.pdf',
  'docling__nemotron_multipage.pdf',
  // forms: a prefilled HR form, a German membership form
  'pdflib__sample_form.pdf',
  'pdfjs__bug1669099.pdf',
  // invoices: a hotel receipt (image, through OCR) and a Dutch invoice
  'invoice2data__oyo.png',
  'invoice2data__coolblue1.pdf',
  // table PDFs of <corpus>/tables
  'tables__eu-010.pdf',
  'tables__eu-024.pdf',
  'tables__us-022.pdf',
  'tables__us-030.pdf',
  // office files
  'docling__word_sample.docx',
  'docling__xlsx_05_table_with_title.xlsx',
  'unstructured__tests-example.xls',
  'docling__csv-comma.csv',
  'docling__powerpoint_sample.pptx',
  // a scanned magazine page (through OCR)
  'tesstest__8071_093.3B.tif',
  // receipt scans of <corpus>/receipts/files no set names (through OCR)
  'sroie__109.jpg',
  'sroie__116.jpg',
  'sroie__141.jpg',
  'sroie__163.jpg',
  'sroie__186.jpg',
  'sroie__197.jpg',
];

// prettier-ignore
export const QUESTIONS: Question[] = [
  // an article on the history of the word processor
  { q: "Which Wang model had a small screen and floppy disks?", type: 'which', expect: ["Wang 1200"], doc: 'docling__multi_page.pdf' },
  { q: "What was redlining in legal word processors an early form of?", type: 'what', expect: ["early version tracking"], doc: 'docling__multi_page.pdf' },
  { q: "Besides Grammarly, which AI writing assistant does the word processor history name?", type: 'which', expect: ["ProWritingAid"], doc: 'docling__multi_page.pdf' },
  { q: "With which cloud storage service does Microsoft Word integrate, according to the article?", type: 'which', expect: ["OneDrive"], doc: 'docling__multi_page.pdf' },
  // a page of a table-recognition paper
  { q: "What TED score on complex tables did OTSL reach with four encoder and four decoder layers?", type: 'what', expect: ["0.904"], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: "What mAP at 0.75 did the HTML model with two encoder and four decoder layers reach?", type: 'what', expect: ["0.834"], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: "Why is OTSL faster at inference than HTML?", type: 'what', expect: ["fewer decoding steps"], doc: 'docling__2305.03393v1-pg9.pdf' },
  { q: "What kind of tables does FinTabNet contain that make it difficult?", type: 'what', expect: ["sparse and large tables"], doc: 'docling__2305.03393v1-pg9.pdf' },
  // a two-column aircraft handbook page
  { q: "What size range does the Rol-top self-locking nut cover?", type: 'what', expect: ["1⁄4 inch to 1⁄6 inch"], doc: 'docling__amt_handbook_sample.pdf' },
  { q: "Which figure shows a cross-section of the stainless steel self-locking nut?", type: 'which', expect: ["Figure 7-27"], doc: 'docling__amt_handbook_sample.pdf' },
  // a rotated four-page scan (through OCR)
  { q: "How does the scanned page describe the Docling package?", type: 'what', expect: ["easy self contained package"], doc: 'docling__nemotron_multipage.pdf' },
  // a prefilled HR form
  { q: "What ZIP code did the employee give on the human resources form?", type: 'what', expect: ["19283"], doc: 'pdflib__sample_form.pdf' },
  { q: "What social security number was entered on the interactive PDF form?", type: 'what', expect: ["111111111"], doc: 'pdflib__sample_form.pdf' },
  { q: "What is the employee's home phone number on the HR form?", type: 'what', expect: ["1234567890"], doc: 'pdflib__sample_form.pdf' },
  // a German club membership form
  { q: "Where can one read the house rules of CCC Salzburg?", type: 'where', expect: ["cccsbg.at/about/commitments.pdf"], doc: 'pdfjs__bug1669099.pdf' },
  { q: "What must someone asking for the reduced CCC Salzburg fee provide?", type: 'what', expect: ["geeigneter Nachweis"], doc: 'pdfjs__bug1669099.pdf' },
  { q: "Where are the statutes of the CCC Salzburg club published?", type: 'where', expect: ["cccsbg.at/about/statuten.pdf"], doc: 'pdfjs__bug1669099.pdf' },
  // a hotel receipt (image, through OCR)
  { q: "What is the GST identification number of Oravel Stays?", type: 'what', expect: ["06AABCO6063D1ZQ"], doc: 'invoice2data__oyo.png' },
  { q: "Into which bank account number should payments to Oravel Stays go?", type: 'what', expect: ["00030340067212"], doc: 'invoice2data__oyo.png' },
  { q: "What telephone number does OYO list for its corporate office?", type: 'what', expect: ["080 100 444 66"], doc: 'invoice2data__oyo.png' },
  { q: "What is the corporate identity number of Oravel Stays?", type: 'what', expect: ["U63090DL2012PTC231770"], doc: 'invoice2data__oyo.png' },
  // a Dutch invoice
  { q: "What is the order number on the Coolblue invoice?", type: 'what', expect: ["12572103"], doc: 'invoice2data__coolblue1.pdf' },
  { q: "What was the serial number of the iPad on the Coolblue invoice?", type: 'what', expect: ["SDMPP373MPP15"], doc: 'invoice2data__coolblue1.pdf' },
  { q: "How much did the leather slim cover cost on the Coolblue invoice?", type: 'how much', expect: ["69,99"], doc: 'invoice2data__coolblue1.pdf' },
  { q: "What is the Chamber of Commerce registration number of Coolblue?", type: 'what', expect: ["24330087"], doc: 'invoice2data__coolblue1.pdf' },
  { q: "What IBAN does Coolblue give on its invoice?", type: 'what', expect: ["NL50INGB0683251309"], doc: 'invoice2data__coolblue1.pdf' },
  // table PDFs: an EIB evaluation (FEMIP technical assistance)
  { q: "What amount of technical assistance did FEMIP sign with Tunisia?", type: 'how much', expect: ["14.50"], doc: 'tables__eu-010.pdf' },
  { q: "What volume of signed technical assistance went to Egypt under FEMIP?", type: 'how much', expect: ["6.60"], doc: 'tables__eu-010.pdf' },
  { q: "What overall investment volume is the FEMIP Support Fund expected to back with technical assistance?", type: 'how much', expect: ["EUR 10 bn"], doc: 'tables__eu-010.pdf' },
  { q: "Which budget years financed the FEMIP technical assistance operations in the table?", type: 'when', expect: ["2003 – 2006"], doc: 'tables__eu-010.pdf' },
  // a student survey
  { q: "How many students said they had been abused by university staff?", type: 'how many', expect: ["25 students"], doc: 'tables__eu-024.pdf' },
  { q: "What percentage of students were never discriminated against because of religion?", type: 'percent', expect: ["97.7%"], doc: 'tables__eu-024.pdf' },
  { q: "What share of students are frequently discriminated against because of their age?", type: 'percent', expect: ["1.5%"], doc: 'tables__eu-024.pdf' },
  { q: "How many students were harassed by people other than university staff and colleagues?", type: 'how many', expect: ["22 students"], doc: 'tables__eu-024.pdf' },
  // an intellectual property enforcement report
  { q: "How many intellectual property investigations did the FBI start in FY 2011?", type: 'how many', expect: ["235 investigations"], doc: 'tables__us-022.pdf' },
  { q: "Which operation went after websites selling illegal and dangerous medicines?", type: 'which', expect: ["Operation Pangea IV"], doc: 'tables__us-022.pdf' },
  { q: "What was the total value of the IPR penalties CBP assessed in FY 2011?", type: 'how much', expect: ["$71,614,950"], doc: 'tables__us-022.pdf' },
  { q: "In FY 2007, how many IP cases did US attorneys bring charges in?", type: 'how many', expect: ["217"], doc: 'tables__us-022.pdf' },
  { q: "How many IP defendants received no prison term in FY 2008?", type: 'how many', expect: ["107"], doc: 'tables__us-022.pdf' },
  { q: "Who received the intellectual property referrals for prosecution?", type: 'who', expect: ["Assistant U S Attorneys"], doc: 'tables__us-022.pdf' },
  { q: "Which agency led the year-long APEC initiative against counterfeit pharmaceuticals?", type: 'who', expect: ["CBP led"], doc: 'tables__us-022.pdf' },
  { q: "By what percentage did the IPR Center's de-conflicted leads grow in FY 2011?", type: 'percent', expect: ["429 percent"], doc: 'tables__us-022.pdf' },
  { q: "What is the title of the report that gives the IP enforcement performance data?", type: 'what', expect: ["IPEC ANNUAL REPORT ON INTELLECTUAL PROPERTY ENFORCEMENT"], doc: 'tables__us-022.pdf' },
  // a fuel economy report
  { q: "How long is the 4171_1 drive cycle in miles?", type: 'how much', expect: ["173.9"], doc: 'tables__us-030.pdf' },
  { q: "How much fuel does improving speed save on cycle 4171_1?", type: 'percent', expect: ["58.1%"], doc: 'tables__us-030.pdf' },
  { q: "What fuel savings did ideal cycles show for drive profiles with very high or very low kinetic intensity?", type: 'percent', expect: ["roughly 60%"], doc: 'tables__us-030.pdf' },
  { q: "What does the fuel economy report suggest sticking around an analog speedometer?", type: 'what', expect: ["stickers"], doc: 'tables__us-030.pdf' },
  { q: "With what kind of insurance could drivers save on premiums by changing how they drive?", type: 'what', expect: ["usage-based insurance"], doc: 'tables__us-030.pdf' },
  { q: "In what year were the real-world GPS travel data of the fuel study collected?", type: 'when', expect: ["collected in 2006"], doc: 'tables__us-030.pdf' },
  { q: "Which earlier report by Gonder and others does this fuel savings study build on?", type: 'which', expect: ["Gonder et al. 2010"], doc: 'tables__us-030.pdf' },
  // office files
  { q: "How many calories does a portion of grain give a duck?", type: 'how many', expect: ["200"], doc: 'docling__word_sample.docx' },
  { q: "What is the overall topic of the Word document about a duck swimming in the lake?", type: 'what', expect: ["Summer activities"], doc: 'docling__word_sample.docx' },
  { q: "In which year were the fewest freshwater ducks observed?", type: 'when', expect: ["2019"], doc: 'docling__xlsx_05_table_with_title.xlsx' },
  { q: "In which year did the freshwater duck count drop from the year before?", type: 'when', expect: ["2023"], doc: 'docling__xlsx_05_table_with_title.xlsx' },
  { q: "In the Blackboard question formats, what does SR mean?", type: 'what', expect: ["Short response"], doc: 'unstructured__tests-example.xls' },
  { q: "Which question type is abbreviated MAT in the Blackboard test template?", type: 'which', expect: ["Matching"], doc: 'unstructured__tests-example.xls' },
  { q: "What is the customer ID of Joanna Bender?", type: 'what', expect: ["053d585Ab6b3159"], doc: 'docling__csv-comma.csv' },
  { q: "What is the e-mail address of Sheryl Baxter?", type: 'what', expect: ["zunigavanessa@smith.info"], doc: 'docling__csv-comma.csv' },
  { q: "Which website is listed for Linda Olsen's company?", type: 'which', expect: ["good-lyons.com"], doc: 'docling__csv-comma.csv' },
  { q: "What does the rectangle on the second slide of the sample deck say?", type: 'what', expect: ["A rectangle shape with this text inside"], doc: 'docling__powerpoint_sample.pptx' },
  // a scanned magazine page (through OCR)
  { q: "What is the title of the magazine article about fathers?", type: 'what', expect: ["What Kids Need Most in a Dad"], doc: 'tesstest__8071_093.3B.tif' },
  { q: "Who took the photograph printed with the article on fatherhood?", type: 'who', expect: ["PAUL SARTON"], doc: 'tesstest__8071_093.3B.tif' },
  { q: "What did Tom suddenly say while his father struggled with the tricycle?", type: 'what', expect: ["I sure do love you, Dad"], doc: 'tesstest__8071_093.3B.tif' },
  { q: "How did the mother in Utah secretly tell her children she loved them?", type: 'what', expect: ["squeeze the child’s shoulder"], doc: 'tesstest__8071_093.3B.tif' },
  { q: "What profession does Ray Guarendi have?", type: 'what', expect: ["clinical psychologist"], doc: 'tesstest__8071_093.3B.tif' },
  // receipts (through OCR)
  { q: "What did one gunny sack cost at Lim Seng Tho Hardware Trading?", type: 'how much', expect: ["0.70"], doc: 'sroie__109.jpg' },
  { q: "What is the invoice number on the Lim Seng Tho Hardware receipt?", type: 'what', expect: ["CS 24399"], doc: 'sroie__109.jpg' },
  { q: "What is the GST registration number of Lim Seng Tho Hardware Trading?", type: 'what', expect: ["001269075968"], doc: 'sroie__109.jpg' },
  { q: "On what date were the gunny sacks bought at Lim Seng Tho Hardware?", type: 'when', expect: ["09/02/2018"], doc: 'sroie__109.jpg' },
  { q: "How much did the two Renderoc plugs cost at Gin Kee?", type: 'how much', expect: ["101.76"], doc: 'sroie__116.jpg' },
  { q: "How much GST was charged on the Gin Kee receipt for scrapers and Renderoc plugs?", type: 'how much', expect: ["6.58"], doc: 'sroie__116.jpg' },
  { q: "What was the total of the Gin Kee receipt of 11 January 2018?", type: 'how much', expect: ["116.28"], doc: 'sroie__116.jpg' },
  { q: "In which neighbourhood of Cheras is Restoran Wan Sheng?", type: 'where', expect: ["Bandar Mahkota Cheras"], doc: 'sroie__141.jpg' },
  { q: "How much GST did Restoran Wan Sheng charge?", type: 'how much', expect: ["0.38"], doc: 'sroie__141.jpg' },
  { q: "On which day was the Roti Steam bought at Restoran Wan Sheng?", type: 'when', expect: ["12-03-2018"], doc: 'sroie__141.jpg' },
  { q: "What is the invoice number of the Restoran Wan Sheng bill?", type: 'what', expect: ["1040841"], doc: 'sroie__141.jpg' },
  { q: "How much was the Tiger beer bought at 99 Speed Mart?", type: 'how much', expect: ["108.50"], doc: 'sroie__163.jpg' },
  { q: "How much change did the customer get back after buying Tiger beer at 99 Speed Mart?", type: 'how much', expect: ["41.50"], doc: 'sroie__163.jpg' },
  { q: "In which town is the address of 99 Speed Mart S/B on the Tiger beer receipt?", type: 'where', expect: ["KLANG"], doc: 'sroie__163.jpg' },
  { q: "When was the Tiger beer bought at 99 Speed Mart?", type: 'when', expect: ["17-02-18"], doc: 'sroie__163.jpg' },
  { q: "What did the lychees and sugar at 99 Speed Mart PJ SS6 cost in total?", type: 'how much', expect: ["45.35"], doc: 'sroie__186.jpg' },
  { q: "How much was the sugar on the 99 Speed Mart PJ SS6 receipt?", type: 'how much', expect: ["35.20"], doc: 'sroie__186.jpg' },
  { q: "Until what time is AEON Taman Maluri open on Fridays and Saturdays?", type: 'when', expect: ["2300 HRS"], doc: 'sroie__197.jpg' },
  { q: "How much cash did the customer hand over at AEON Taman Maluri?", type: 'how much', expect: ["50.00"], doc: 'sroie__197.jpg' },
  { q: "How many items were bought at AEON Taman Maluri?", type: 'how many', expect: ["Item Count 4"], doc: 'sroie__197.jpg' },
  // answered by none of the documents (expect [], doc: the document nearest in topic): to be refused
  { q: "How much FEMIP technical assistance was signed for Libya?", type: 'how much', expect: [], doc: 'tables__eu-010.pdf' },
  { q: "How many intellectual property investigations did the FBI open in FY 2012?", type: 'how many', expect: [], doc: 'tables__us-022.pdf' },
  { q: "What does CCC Salzburg charge for a family membership?", type: 'how much', expect: [], doc: 'pdfjs__bug1669099.pdf' },
  { q: "How many calories are in a portion of fish on the duck menu?", type: 'how many', expect: [], doc: 'docling__word_sample.docx' },
  { q: "How many freshwater ducks were observed in 2018?", type: 'how many', expect: [], doc: 'docling__xlsx_05_table_with_title.xlsx' },
  { q: "What is the telephone number of Coolblue's customer service?", type: 'what', expect: [], doc: 'invoice2data__coolblue1.pdf' },
  { q: "At what time can guests check in at the OYO 4189 Resort?", type: 'when', expect: [], doc: 'invoice2data__oyo.png' },
  { q: "Who wrote the article on the evolution of the word processor?", type: 'who', expect: [], doc: 'docling__multi_page.pdf' },
  { q: "What tip was left on the Restoran Wan Sheng bill?", type: 'how much', expect: [], doc: 'sroie__141.jpg' },
  { q: "On which GPU were the OTSL and HTML models trained?", type: 'which', expect: [], doc: 'docling__2305.03393v1-pg9.pdf' },
];
