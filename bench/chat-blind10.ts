/**
 * The eleventh blind question set of bench/chat.ts (`--set blind10`). Written on 2026-11-29 from the chunk text alone (the
 * output of `bench/chat.ts --set blind10 --dump dir`, which parses the documents and asks no question): no question was put
 * to the answerer while the set was written, no answer was read, and the answerer's code was not read. Its 24 documents
 * mirror what users upload: prose PDFs (a history of the word processor, a two-column aviation handbook page and an Arabic
 * article), forms (a filled HR form and the French Luxembourg wage certificate), invoices (the OYO hotel receipt as an image,
 * through OCR, the Dutch Coolblue invoice and a Swiss QR bill photo, through OCR), four table PDFs of `<corpus>/tables`
 * (projections of US education statistics, Campylobacter in pig and bovine meat, a CDC report on inadequate and unhealthy
 * housing, Finnish vocational training finance), office files (a Word handbook page, Nestlé's half-year results workbook, a
 * wide CSV correlation matrix, a slide deck with a table and notes, a legacy Word file with emphasis and a table), a scanned
 * magazine page (TIFF, through OCR), and six SROIE receipts of `<corpus>/receipts/files` that no earlier set names (a sushi
 * restaurant, an ice cream parlour, a bubble tea kiosk at a petrol station, a café, a sandwich chain and a department store).
 * The documents were chosen among the least loaded by earlier sets (counted over bench/chat-*.ts, other formats of one
 * document counted together, and the dev set of bench/chat.ts counted as one more): the receipts had never been loaded, the
 * four table PDFs once; of the other kinds the least loaded documents with facts still unasked were taken, loaded four to
 * seven times (the signed one-field form and the one-sentence scans, loaded two or three times, have nothing left to ask;
 * the AWS invoice and the 10-K page gave way to the QR bill and the legacy Word file because the dev set asks nearly all
 * their facts). Their questions go to what earlier sets had not asked.
 * The questions ask, in other words than the documents', for dates, amounts, counts, names, identifiers (bill, invoice,
 * customer and BIC numbers), table cells (row × column: state × school year, country × year, group × survey answer,
 * segment × half-year, a correlation matrix's row × column), reasons, titles and labels; seven are in the document's language
 * (two in Arabic, two in French, three in Dutch).
 * Checks, each by a script: every expected string occurs (case-insensitive, whitespace collapsed) in one chunk of its
 * document, as dumped; no question repeats one of the earlier sets or of the dev set (same document, other formats included,
 * and a same expected string; or word overlap (Jaccard) ≥ 0.6 on the same document or ≥ 0.8 on any document); no expected
 * string is shorter than 3 characters. The last ten questions have `expect: []`: their answer is in none of the documents
 * (checked by searching the dump, and `pdftotext` of the PDFs, the OYO receipt's PDF among them, and the workbook's XML);
 * the answer must be a refusal; `doc` names the document nearest in topic. bench/chat.ts counts such a refusal as "refused"
 * and any other answer as "wrong".
 * Answerable questions by type: what 33, how much 16, which 15, how many 11, percent 5, when 4, where 4, who 3 (91).
 * Weak spots: four expected strings are 3-character cell numbers or a weight (454, 334, 936, 10g), which could match by
 * chance; the receipts and the QR bill are read through OCR, and one expected string stands next to an OCR slip
 * ("FRI-SAI: 1000 HRS - 2300 HRS"); in the handbook page a figure caption splits "The wing type that is … the most common";
 * "1990s" occurs twice in the word processor history (both for the asked fact); the Arabic and the emphasized Word file
 * give little text, and the slide deck only two questions; several documents had been loaded by five to seven sets, so
 * what is left to ask of them is of the smaller facts.
 */
import type { Question } from './chat-question.js';

export const DOCUMENTS = [
  // prose PDFs: a history of the word processor, a two-column aviation handbook page, an Arabic article
  'docling__multi_page.pdf',
  'docling__amt_handbook_sample.pdf',
  'docling__right_to_left_01.pdf',
  // forms: a filled HR form, the Luxembourg wage certificate (French)
  'pdflib__sample_form.pdf',
  'pdfjs__160F-2019.pdf',
  // invoices: the OYO hotel receipt (image, through OCR), the Dutch Coolblue invoice, a Swiss QR bill (photo, through OCR)
  'invoice2data__oyo.png',
  'invoice2data__coolblue1.pdf',
  'docling__qr_bill_example.jpg',
  // table PDFs of <corpus>/tables
  'tables__us-018.pdf',
  'tables__eu-018.pdf',
  'tables__us-024.pdf',
  'tables__eu-014.pdf',
  // office files
  'unstructured__handbook-1p.docx',
  'unstructured__2023-half-year-analyses-by-segment.xlsx',
  'unstructured__csv-with-long-lines.csv',
  'docling__powerpoint_sample.pptx',
  'unstructured__fake-doc-emphasized-text.doc',
  // a scanned magazine page (TIFF, through OCR)
  'tesstest__8071_093.3B.tif',
  // receipt scans of <corpus>/receipts/files no set names (through OCR)
  'sroie__147.jpg',
  'sroie__157.jpg',
  'sroie__160.jpg',
  'sroie__170.jpg',
  'sroie__187.jpg',
  'sroie__194.jpg',
];

// prettier-ignore
export const QUESTIONS: Question[] = [
  // a history of the word processor
  { q: "Who in offices gained most from the first dedicated word processing machines?", type: 'who', expect: ["secretarial pools"], doc: 'docling__multi_page.pdf' },
  { q: "Which early aid let typists make copies of what they typed?", type: 'which', expect: ["carbon paper"], doc: 'docling__multi_page.pdf' },
  { q: "By which decade had spelling and grammar checking become standard in word processors?", type: 'when', expect: ["1990s"], doc: 'docling__multi_page.pdf' },
  { q: "Which kinds of documents does the article give as examples of ready-made templates?", type: 'which', expect: ["resumes, letters"], doc: 'docling__multi_page.pdf' },
  // a two-column aviation maintenance handbook page
  { q: "What sizes does the wing-style Boots nut come in?", type: 'what', expect: ["No. 6 up to 1⁄4 inch"], doc: 'docling__amt_handbook_sample.pdf' },
  { q: "Which shape of Boots self-locking nut is seen most often?", type: 'which', expect: ["wing type"], doc: 'docling__amt_handbook_sample.pdf' },
  { q: "Can a Boots self-locking nut be put back on after it has been taken off?", type: 'what', expect: ["reused without impairing"], doc: 'docling__amt_handbook_sample.pdf' },
  { q: "How can the stainless steel lock nut be fitted before it is tightened?", type: 'what', expect: ["spun on and off by hand"], doc: 'docling__amt_handbook_sample.pdf' },
  // an Arabic article on R and Python
  { q: "What does the Arabic article say the pandas library lets Python users do?", type: 'what', expect: ["لإدارة البيانات بكفاءة"], doc: 'docling__right_to_left_01.pdf' },
  { q: "ما الذي يمكن استخراجه من كميات البيانات الهائلة حين يجتمع التحليل مع البرمجة؟", type: 'what', expect: ["الأنماط والتوجهات"], doc: 'docling__right_to_left_01.pdf' },
  { q: "Who, according to the Arabic text, can run complex analyses quickly thanks to R and Python?", type: 'who', expect: ["المحللين والعلماء"], doc: 'docling__right_to_left_01.pdf' },
  { q: "إلى أي نوع من القرارات تؤدي الاستنتاجات المبنية على البيانات بحسب المقال؟", type: 'what', expect: ["قرارات أكثر دقة"], doc: 'docling__right_to_left_01.pdf' },
  // a filled HR form
  { q: "Which system name is printed above the address part of the sample employee form?", type: 'which', expect: ["HUMAN RESOURCES MANAGEMENT SYSTEM"], doc: 'pdflib__sample_form.pdf' },
  { q: "Can the free Adobe Reader make a flat PDF form interactive?", type: 'what', expect: ["does not provide this functionality"], doc: 'pdflib__sample_form.pdf' },
  { q: "Into what does the Hand pointer turn when it hovers over a fillable field?", type: 'what', expect: ["I-beam"], doc: 'pdflib__sample_form.pdf' },
  { q: "Which notice appears in the purple bar when a form's author has allowed saving typed entries?", type: 'which', expect: ["You can save data typed into this form"], doc: 'pdflib__sample_form.pdf' },
  // the Luxembourg wage certificate (French)
  { q: "Comment obtient-on les cotisations sociales déductibles sur le certificat de salaire luxembourgeois ?", type: 'what', expect: ["ligne 8 - ligne 9"], doc: 'pdfjs__160F-2019.pdf' },
  { q: "Which contributions are not counted in the insured person's share of social contributions on the Luxembourg certificate?", type: 'which', expect: ["assurance dépendance"], doc: 'pdfjs__160F-2019.pdf' },
  { q: "What must the employer say yes or no to in box J of the model 160 certificate?", type: 'what', expect: ["interruptions de travail pour maladie"], doc: 'pdfjs__160F-2019.pdf' },
  { q: "Que désigne la lettre C dans le détail des rémunérations du modèle 160 ?", type: 'what', expect: ["cotisation de sécurité sociale complémentaire"], doc: 'pdfjs__160F-2019.pdf' },
  // the OYO hotel receipt (image, through OCR)
  { q: "Which taxes are already included in the amount payable to OYO?", type: 'which', expect: ["Central & State Goods & Services Tax"], doc: 'invoice2data__oyo.png' },
  { q: "On what street is OYO 4189 Resort Nanganallur?", type: 'where', expect: ["Vembuliamman Koil Street"], doc: 'invoice2data__oyo.png' },
  { q: "When should the OYO guest ask the hotel for a tax invoice?", type: 'when', expect: ["at the time of check-out"], doc: 'invoice2data__oyo.png' },
  { q: "In which building is OYO's corporate office in Gurgaon?", type: 'where', expect: ["Spaze Palazo"], doc: 'invoice2data__oyo.png' },
  // the Dutch Coolblue invoice
  { q: "Wat is de BIC van de bankrekening van Coolblue?", type: 'what', expect: ["INGBNL2A"], doc: 'invoice2data__coolblue1.pdf' },
  { q: "Hoeveel kostte de AC-adapter voor de Nintendo op de Coolblue-factuur?", type: 'how much', expect: ["14,99"], doc: 'invoice2data__coolblue1.pdf' },
  { q: "How much was the home copying levy on the Coolblue invoice?", type: 'how much', expect: ["4,24"], doc: 'invoice2data__coolblue1.pdf' },
  { q: "Which website address appears with Coolblue's company details on the invoice?", type: 'which', expect: ["www.tabletcenter.nl"], doc: 'invoice2data__coolblue1.pdf' },
  // a Swiss QR bill (photo, through OCR)
  { q: "Which landline number can Pia Rutschmann call to reach her gardening firm?", type: 'which', expect: ["059/9876540"], doc: 'docling__qr_bill_example.jpg' },
  { q: "In which town does the customer of the garden work bill live?", type: 'where', expect: ["Rorschach"], doc: 'docling__qr_bill_example.jpg' },
  { q: "What do the garden work and the disposal add up to before VAT?", type: 'how much', expect: ["3667.35"], doc: 'docling__qr_bill_example.jpg' },
  { q: "How much do the 28 hours of garden work come to on the bill?", type: 'how much', expect: ["3360.00"], doc: 'docling__qr_bill_example.jpg' },
  // projections of education statistics
  { q: "What was Ohio's count of public high school graduates in 2003–04?", type: 'how many', expect: ["119,029"], doc: 'tables__us-018.pdf' },
  { q: "What number of public high school graduates is projected for Florida in 2010–11?", type: 'how many', expect: ["163,620"], doc: 'tables__us-018.pdf' },
  { q: "By how many percent will Vermont's graduating classes shrink between 2008–09 and 2021–22?", type: 'percent', expect: ["-21.2", "21.2"], doc: 'tables__us-018.pdf' },
  { q: "How many teachers, in thousands, did public schools employ in 2008?", type: 'how many', expect: ["3,219"], doc: 'tables__us-018.pdf' },
  { q: "What fall enrollment, in thousands, is projected for public schools in 2021–22?", type: 'how many', expect: ["53,113"], doc: 'tables__us-018.pdf' },
  // Campylobacter in pig and bovine meat
  { q: "How many fresh pig meat samples did Germany examine for Campylobacter in 2004?", type: 'how many', expect: ["454"], doc: 'tables__eu-018.pdf' },
  { q: "What was the size of Italy's 2007 sample of beef at retail checked for Campylobacter?", type: 'how many', expect: ["334"], doc: 'tables__eu-018.pdf' },
  { q: "What sample weight did Luxembourg use for its bovine meat samples?", type: 'what', expect: ["10g"], doc: 'tables__eu-018.pdf' },
  { q: "How many bovine meat samples did the Netherlands take in 2006?", type: 'how many', expect: ["936"], doc: 'tables__eu-018.pdf' },
  { q: "Which meat kinds are left out of the Campylobacter retail tables?", type: 'which', expect: ["minced meat", "mechanically separated meat", "meat preparations"], doc: 'tables__eu-018.pdf' },
  // a CDC report on inadequate and unhealthy housing
  { q: "About how many housing units does the American Housing Survey collect data on?", type: 'how many', expect: ["55,000"], doc: 'tables__us-024.pdf' },
  { q: "Which agency carries out the American Housing Survey?", type: 'who', expect: ["U.S. Census Bureau"], doc: 'tables__us-024.pdf' },
  { q: "In what share of remediated homes did radon mitigation bring levels down to an acceptable level?", type: 'percent', expect: ["95%"], doc: 'tables__us-024.pdf' },
  { q: "What share of Hispanic householders reported seeing rodents recently in 2009?", type: 'percent', expect: ["51.3"], doc: 'tables__us-024.pdf' },
  { q: "How many U.S. housing units are counted as inadequate?", type: 'how many', expect: ["5.8 million"], doc: 'tables__us-024.pdf' },
  // Finnish vocational training finance
  { q: "What did Finland's vocational institutions cost to run in total in 2004?", type: 'how much', expect: ["EUR 1 107 million"], doc: 'tables__eu-014.pdf' },
  { q: "What was the average cost per student at Finnish vocational institutions in 2004?", type: 'how much', expect: ["EUR 8 467"], doc: 'tables__eu-014.pdf' },
  { q: "What share of the apprenticeship unit price does the Finnish State pay?", type: 'percent', expect: ["77 %"], doc: 'tables__eu-014.pdf' },
  { q: "How much money did the Noste programme receive in 2006?", type: 'how much', expect: ["EUR 30 million"], doc: 'tables__eu-014.pdf' },
  { q: "How much does the EU contribute to the Objective 3 programme budget for 2000-06?", type: 'how much', expect: ["EUR 410 million"], doc: 'tables__eu-014.pdf' },
  // office files: a US Trustee handbook page (Word)
  { q: "What must a standing trustee do on becoming unable to carry out the job?", type: 'what', expect: ["immediately advise the United States Trustee"], doc: 'unstructured__handbook-1p.docx' },
  { q: "May the trustee handbook stand in for looking up the law?", type: 'what', expect: ["substitute for legal research"], doc: 'unstructured__handbook-1p.docx' },
  { q: "What did debtors and creditors fear about courts that had appointed the trustee?", type: 'what', expect: ["not impartially adjudicate"], doc: 'unstructured__handbook-1p.docx' },
  { q: "Does the handbook give other parties extra rights against the standing trustee?", type: 'what', expect: ["does not create additional rights"], doc: 'unstructured__handbook-1p.docx' },
  // Nestlé's half-year results by segment (Excel)
  { q: "How much did Zone AOA sell from January to June 2022, in millions of CHF?", type: 'how much', expect: ["9335"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What underlying trading operating profit did powdered and liquid beverages earn in the first half of 2023?", type: 'how much', expect: ["2607"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What sales did the nutrition and health science product group record in January–June 2023?", type: 'how much', expect: ["7832"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What depreciation and amortization did Zone NA book in the first half of 2023?", type: 'how much', expect: ["-337", "337"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  // a wide correlation matrix (CSV)
  { q: "What is the rank correlation between the unstimulated granulocyte frequency and basophil P38?", type: 'what', expect: ["-0.408576329"], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: "How closely do unstimulated basophil S6 and basophil P38 move together, by Spearman's coefficient?", type: 'what', expect: ["0.544044216"], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: "Which coefficient does the matrix give for basophil 4EBP1 against basophil P38 without stimulation?", type: 'what', expect: ["0.669677911"], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: "What Spearman value pairs granulocyte frequency with CD4 effector T cell STAT3, unstimulated?", type: 'what', expect: ["0.305504622"], doc: 'unstructured__csv-with-long-lines.csv' },
  // a sample slide deck
  { q: "What is the heading of the slide after the table slide in the sample deck?", type: 'what', expect: ["Second slide title"], doc: 'docling__powerpoint_sample.pptx' },
  { q: "Which bullet closes the list introduced on the second slide?", type: 'which', expect: ["And baz things"], doc: 'docling__powerpoint_sample.pptx' },
  // a legacy Word file with emphasis and a table
  { q: "What does the emphasized sentence of the legacy Word file with the two-column table say?", type: 'what', expect: ["I am a bold italic bold-italic text"], doc: 'unstructured__fake-doc-emphasized-text.doc' },
  { q: "Which text is in the first body cell under Header Col 1?", type: 'which', expect: ["A bold italic bold-italic example"], doc: 'unstructured__fake-doc-emphasized-text.doc' },
  // a scanned magazine page (TIFF, through OCR)
  { q: "How old was Zig Ziglar's son when the tricycle was being put together?", type: 'how many', expect: ["four-year-old"], doc: 'tesstest__8071_093.3B.tif' },
  { q: "What did the little girl answer when her parents asked why she was crying?", type: 'what', expect: ["It’s nothing"], doc: 'tesstest__8071_093.3B.tif' },
  { q: "What, according to Guarendi's book, are still the keys to raising children successfully?", type: 'what', expect: ["traditional values"], doc: 'tesstest__8071_093.3B.tif' },
  { q: "How does one father who is good at music tell his kids he loves them?", type: 'what', expect: ["writes songs"], doc: 'tesstest__8071_093.3B.tif' },
  // receipts (through OCR)
  { q: "How much was the Unagi Don at Sushi Mentai Mahkota Cheras?", type: 'how much', expect: ["19.80"], doc: 'sroie__147.jpg' },
  { q: "How much service charge was added to the Sushi Mentai bill?", type: 'how much', expect: ["5.62"], doc: 'sroie__147.jpg' },
  { q: "Which card was used to pay at Sushi Mentai?", type: 'which', expect: ["VISA"], doc: 'sroie__147.jpg' },
  { q: "What is the bill number of the Sushi Mentai receipt?", type: 'what', expect: ["V042-513777"], doc: 'sroie__147.jpg' },
  { q: "What did the customer buy at Baskin Robbins Desa Park City?", type: 'what', expect: ["Double Rg. Cup"], doc: 'sroie__157.jpg' },
  { q: "What is the invoice number on the Baskin Robbins receipt?", type: 'what', expect: ["DPC1153409-001-0006"], doc: 'sroie__157.jpg' },
  { q: "What is the phone number of the Baskin Robbins outlet at Desa Park City?", type: 'what', expect: ["(603) 6280 7131"], doc: 'sroie__157.jpg' },
  { q: "Which drink was ordered at Tealive Shell Kepong?", type: 'which', expect: ["Hazelnut Coco-L"], doc: 'sroie__160.jpg' },
  { q: "What is the bill number on the Tealive receipt?", type: 'what', expect: ["394024495"], doc: 'sroie__160.jpg' },
  { q: "How many loyalty points did the Tealive customer miss by not having a card?", type: 'how many', expect: ["8 points"], doc: 'sroie__160.jpg' },
  { q: "What are Zen and Coffee's opening hours at the weekend?", type: 'when', expect: ["SAT-SUN 11:00am-10:00pm"], doc: 'sroie__170.jpg' },
  { q: "What e-mail address does Zen and Coffee print on its receipt?", type: 'what', expect: ["zenandcoffee88@gmail.com"], doc: 'sroie__170.jpg' },
  { q: "How much GST did the Zen and Coffee bill include?", type: 'how much', expect: ["5.95"], doc: 'sroie__170.jpg' },
  { q: "What did each EDV meal cost at Subway Kelana Jaya?", type: 'how much', expect: ["RM11.90"], doc: 'sroie__187.jpg' },
  { q: "On which website can Subway customers fill in the survey for a free cookie?", type: 'where', expect: ["www.tellsubway.my"], doc: 'sroie__187.jpg' },
  { q: "Which subs were in the two Subway meals?", type: 'which', expect: ["Meatball", "BQ Chicken Strips"], doc: 'sroie__187.jpg' },
  { q: "What is the valued customer number on the AEON Taman Maluri receipt?", type: 'what', expect: ["1370001392"], doc: 'sroie__194.jpg' },
  { q: "How late is AEON Taman Maluri open on Fridays and Saturdays?", type: 'when', expect: ["2300 HRS"], doc: 'sroie__194.jpg' },
  { q: "What discount did the cable box get at AEON?", type: 'percent', expect: ["41%"], doc: 'sroie__194.jpg' },
  // answered by none of the documents (expect [], doc: the document nearest in topic): to be refused
  { q: "How many students graduated from private high schools in Texas in 2010–11?", type: 'how many', expect: [], doc: 'tables__us-018.pdf' },
  { q: "How many broiler carcasses did Austria sample for Campylobacter?", type: 'how many', expect: [], doc: 'tables__eu-018.pdf' },
  { q: "What share of U.S. homes had radon above 4 pCi/L in 2009?", type: 'percent', expect: [], doc: 'tables__us-024.pdf' },
  { q: "How much did Finland spend on its universities in 2004?", type: 'how much', expect: [], doc: 'tables__eu-014.pdf' },
  { q: "What did the Apple Pencil cost on the Coolblue invoice?", type: 'how much', expect: [], doc: 'invoice2data__coolblue1.pdf' },
  { q: "How much was charged for breakfast on the OYO receipt?", type: 'how much', expect: [], doc: 'invoice2data__oyo.png' },
  { q: "How much did the salmon sashimi cost at Sushi Mentai?", type: 'how much', expect: [], doc: 'sroie__147.jpg' },
  { q: "What dividend per share did Nestlé pay out for 2022?", type: 'how much', expect: [], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What e-mail address did the employee enter on the sample HR form?", type: 'what', expect: [], doc: 'pdflib__sample_form.pdf' },
  { q: "In which year was WordPerfect first released?", type: 'when', expect: [], doc: 'docling__multi_page.pdf' },
];
