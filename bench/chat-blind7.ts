/**
 * The eighth blind question set of bench/chat.ts (`--set blind7`). Written on 2026-11-29 from the chunk text alone (the
 * output of `bench/chat.ts --set blind7 --dump dir`, which parses the documents and asks no question): no question was put
 * to the answerer while the set was written, and the answerer's code was not read. Its 24 documents mirror what users
 * upload, taken where earlier sets had loaded fewest: prose PDFs (a Korean National Assembly brief, an Arabic article, an
 * 18-page IBM Redpaper, a two-column paper and a scanned paper page through OCR), forms (the 13-page CRA cannabis return,
 * the Luxembourg wage certificate in French, a prefilled AcroForm), invoices (the Swiss QR bill as an image and the German
 * two-page QualityHosting invoice), tables (a scanned table with merged cells, two table PDFs of `<corpus>/tables`), office
 * files (Word tables, two workbooks, a wide CSV, a slide deck with charts) and six SROIE receipts of
 * `<corpus>/receipts/files` that no set names (two of one hardware shop, four of other shops). The manifest documents whose
 * chunks hold nothing an earlier set has not asked (the one-line scans, the signed test form, the checkbox and
 * emphasized-text Word files) were left out. The questions ask, in other words than the documents', for dates, amounts,
 * counts, names, identifiers (bill, contract, customer and document numbers, function IDs), table cells (row × column),
 * reasons, a deadline, titles and labels in Korean, Arabic, French and German; none repeats a question of an earlier
 * set. Every expected string occurs (case-insensitive, whitespace collapsed) in one chunk of its document, as dumped
 * (checked with a script over the dump). The last ten questions have `expect: []`: their answer is in none of the
 * documents (checked by searching the dump), so the answer must be a refusal; `doc` names the document nearest in topic.
 * bench/chat.ts counts such a refusal as "refused" and any other answer as "wrong".
 */
import type { Question } from './chat-question.js';

export const DOCUMENTS = [
  // prose PDFs: a Korean report, an Arabic article, a long technical report, a two-column paper, a scanned paper page
  'docling__normal_4pages.pdf',
  'docling__right_to_left_01.pdf',
  'docling__redp5110_sampled.pdf',
  'unstructured__multi-column-2p.pdf',
  'docling__2206.01062.tif',
  // forms: a 13-page government return, a wage certificate, a prefilled form
  'pdflib__with_combed_fields.pdf',
  'pdfjs__160F-2019.pdf',
  'pdflib__fancy_fields.pdf',
  // invoices: a Swiss QR bill (image, through OCR) and a two-page German invoice
  'docling__qr_bill_example.jpg',
  'invoice2data__QualityHosting.pdf',
  // tables: a scanned table with merged cells and two table PDFs of <corpus>/tables
  'unstructured__table-multi-row-column-cells.pdf',
  'tables__us-016.pdf',
  'tables__us-034.pdf',
  // office files
  'docling__word_tables.docx',
  'docling__xlsx_01.xlsx',
  'unstructured__2023-half-year-analyses-by-segment.xlsx',
  'unstructured__csv-with-long-lines.csv',
  'docling__pptx_chart.pptx',
  // receipt scans of <corpus>/receipts/files no set names (through OCR)
  'sroie__100.jpg',
  'sroie__103.jpg',
  'sroie__107.jpg',
  'sroie__102.jpg',
  'sroie__104.jpg',
  'sroie__106.jpg',
];

// prettier-ignore
export const QUESTIONS: Question[] = [
  // a Korean report (National Assembly Research Service brief)
  { q: "What telephone number does the Korean brief give for the National Assembly Research Service?", type: 'what', expect: ["02-788-4510"], doc: 'docling__normal_4pages.pdf' },
  { q: "What is the e-mail address of the author of the Korean brief on COVID-19 insurance payouts?", type: 'what', expect: ["ja0512@assembly.go.kr"], doc: 'docling__normal_4pages.pdf' },
  { q: "From what date did the amended Korean law on preventing infectious diseases apply?", type: 'when', expect: ["2020.1.1."], doc: 'docling__normal_4pages.pdf' },
  { q: "Which range of disease codes is left out of cover by the life insurance accident classification table?", type: 'which', expect: ["U00~U99"], doc: 'docling__normal_4pages.pdf' },
  { q: "Why do life insurers argue that a new disease like COVID-19 is in principle not covered?", type: 'what', expect: ["Measurable Risk", "측정가능한 위험"], doc: 'docling__normal_4pages.pdf' },
  { q: "What new kinds of insurance products does the Korean brief say should be developed?", type: 'what', expect: ["Parametric Insurance", "파라메트릭", "인덱스"], doc: 'docling__normal_4pages.pdf' },
  { q: "What is the Korean name of the series in which the National Assembly brief on COVID-19 insurance appeared?", type: 'what', expect: ["이슈와 논점"], doc: 'docling__normal_4pages.pdf' },
  // an Arabic article
  { q: "What kind of mindset does the Arabic article say should go together with programming in R and Python?", type: 'what', expect: ["عقلية تحليلية"], doc: 'docling__right_to_left_01.pdf' },
  { q: "For whom does the Arabic article say R's tools are ideal?", type: 'who', expect: ["للباحثين والمحللين"], doc: 'docling__right_to_left_01.pdf' },
  // a long technical report (IBM Redpaper)
  { q: "Which function usage ID governs access through the Toolbox application server?", type: 'which', expect: ["QIBM_DB_ZDA"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "Which system value sets the default public authority for newly created objects?", type: 'which', expect: ["QCRTAUT"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "At what e-mail address can Hernando Bedoya be contacted?", type: 'what', expect: ["hbedoya@us.ibm.com"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "Why does menu-based security fail to protect data on IBM i today?", type: 'what', expect: ["bypass application menus"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "In the human resources example, what does a manager see of another employee's tax ID?", type: 'what', expect: ["XXX-XX-1234", "first five characters"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "What is the publication number of the Redpaper on row and column access control?", type: 'what', expect: ["REDP-5110-00"], doc: 'docling__redp5110_sampled.pdf' },
  // a two-column paper
  { q: "When was the third version of the dense passage retrieval paper posted?", type: 'when', expect: ["30 Sep 2020"], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "Why is ORQA's inverse cloze pretraining seen as a drawback?", type: 'what', expect: ["computationally intensive"], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "What did the DPR authors find works better than natural paragraphs as retrieval units?", type: 'what', expect: ["fixed-length passages"], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "On which search library was the BM25 baseline of the DPR paper built?", type: 'which', expect: ["Lucene"], doc: 'unstructured__multi-column-2p.pdf' },
  // a scanned paper page (through OCR)
  { q: "On what date was the DocLayNet paper submitted to arXiv?", type: 'when', expect: ["2 Jun 2022"], doc: 'docling__2206.01062.tif' },
  { q: "In which image format are DocLayNet's page images provided?", type: 'what', expect: ["PNG"], doc: 'docling__2206.01062.tif' },
  // a 13-page government return (CRA form B300)
  { q: "What is the postal code of the tax centre the cannabis duty return is mailed to?", type: 'what', expect: ["C1N 6E7"], doc: 'pdflib__with_combed_fields.pdf' },
  { q: "Does a cannabis licensee with nothing to report for a month still have to file the return?", type: 'what', expect: ["send the completed form by the deadline"], doc: 'pdflib__with_combed_fields.pdf' },
  { q: "Should receipts be sent along with the cannabis duty return?", type: 'what', expect: ["Do not attach receipts"], doc: 'pdflib__with_combed_fields.pdf' },
  { q: "What may happen if the cannabis return or its payment comes in late?", type: 'what', expect: ["interest and/or a penalty"], doc: 'pdflib__with_combed_fields.pdf' },
  { q: "Which CRA online service lets an authorised representative see a business's tax information?", type: 'which', expect: ["Represent a Client"], doc: 'pdflib__with_combed_fields.pdf' },
  // a Luxembourg wage certificate (French)
  { q: "What does the deduction code DS stand for on the Luxembourg wage certificate?", type: 'what', expect: ["dépenses spéciales"], doc: 'pdfjs__160F-2019.pdf' },
  { q: "What is meant by the deduction code AC on the Luxembourg salary certificate?", type: 'what', expect: ["abattement conjoint"], doc: 'pdfjs__160F-2019.pdf' },
  { q: "Which kind of payment does the letter P mark on the Luxembourg wage certificate?", type: 'what', expect: ["pension"], doc: 'pdfjs__160F-2019.pdf' },
  { q: "Which tax credit is abbreviated CIS on the Luxembourg salary certificate?", type: 'which', expect: ["crédit d'impôt pour salariés"], doc: 'pdfjs__160F-2019.pdf' },
  { q: "What is the full French title of the Luxembourg model 160 form?", type: 'what', expect: ["Certificat de salaire, de retenue d'impôt et de crédits d'impôt bonifiés"], doc: 'pdfjs__160F-2019.pdf' },
  // a prefilled form
  { q: "Whose name was entered on the fancy fields form?", type: 'who', expect: ["Lightningtwirls", "Cedar"], doc: 'pdflib__fancy_fields.pdf' },
  { q: "Which title was selected as prefix on the fancy fields form?", type: 'what', expect: ["Ms."], doc: 'pdflib__fancy_fields.pdf' },
  // a Swiss QR bill (image, through OCR)
  { q: "What is the number of the garden work bill from Robert Schneider AG?", type: 'what', expect: ["3139"], doc: 'docling__qr_bill_example.jpg' },
  { q: "How much was charged for taking away the cuttings on the garden work bill?", type: 'how much', expect: ["307.35"], doc: 'docling__qr_bill_example.jpg' },
  { q: "Within how many days must Pia Rutschmann pay the garden work bill?", type: 'how many', expect: ["30 days"], doc: 'docling__qr_bill_example.jpg' },
  { q: "Into which account is the garden work bill to be paid?", type: 'what', expect: ["CH5800791123000889012", "CH580079 11230008 89012"], doc: 'docling__qr_bill_example.jpg' },
  { q: "In which town does Robert Schneider AG have its office?", type: 'where', expect: ["Biel"], doc: 'docling__qr_bill_example.jpg' },
  // a German invoice
  { q: "What customer number does iViveLabs have at QualityHosting?", type: 'what', expect: ["47774"], doc: 'invoice2data__QualityHosting.pdf' },
  { q: "Which contract number appears on the QualityHosting invoice?", type: 'what', expect: ["CON02858"], doc: 'invoice2data__QualityHosting.pdf' },
  { q: "By what method is the QualityHosting invoice to be paid?", type: 'what', expect: ["Banküberweisung"], doc: 'invoice2data__QualityHosting.pdf' },
  { q: "To which e-mail address should questions about a QualityHosting invoice be sent?", type: 'what', expect: ["buchhaltung@qualityhosting.de"], doc: 'invoice2data__QualityHosting.pdf' },
  { q: "On which street is QualityHosting AG located?", type: 'where', expect: ["Uferweg 40-42"], doc: 'invoice2data__QualityHosting.pdf' },
  // a scanned table with merged cells (through OCR)
  { q: "How many ballots were left incomplete or terminated by the blind participants in the accessibility study?", type: 'how many', expect: ["4"], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  { q: "How long did the Mobility group need to complete a ballot?", type: 'how much', expect: ["1416 sec"], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  { q: "What accuracy did the Dexterity group reach in the accessibility study?", type: 'percent', expect: ["98.3%"], doc: 'unstructured__table-multi-row-column-cells.pdf' },
  // table PDFs (FDA guidance on patient-reported outcomes; survey sample sizes)
  { q: "In which questionnaires are pictorial response scales often used?", type: 'which', expect: ["pediatric"], doc: 'tables__us-016.pdf' },
  { q: "Which patients may have trouble completing a visual analog scale?", type: 'who', expect: ["visual impairment"], doc: 'tables__us-016.pdf' },
  { q: "What choices does a checklist typically give the patient?", type: 'what', expect: ["Yes, No"], doc: 'tables__us-016.pdf' },
  { q: "What effects at the top or bottom of the response range should response options avoid?", type: 'what', expect: ["ceiling or floor effects"], doc: 'tables__us-016.pdf' },
  { q: "Why are items that make patients recall a long period a concern?", type: 'what', expect: ["content validity"], doc: 'tables__us-016.pdf' },
  { q: "What sample size is recommended for a proportion of 0.85 at a design effect of 2.5?", type: 'how many', expect: ["133"], doc: 'tables__us-034.pdf' },
  { q: "What sample size is recommended for a proportion of 0.80 at a design effect of 3.5?", type: 'how many', expect: ["140"], doc: 'tables__us-034.pdf' },
  { q: "How is the design effect defined in the note under the sample size table?", type: 'what', expect: ["complex sample variance/simple random sample variance"], doc: 'tables__us-034.pdf' },
  { q: "What kind of distributions are percentiles often used to describe?", type: 'what', expect: ["asymmetric distributions"], doc: 'tables__us-034.pdf' },
  // office files
  { q: "In the uniform table of the Word table test, what is in the second body row under Header 0.2?", type: 'what', expect: ["Cell 2.2"], doc: 'docling__word_tables.docx' },
  { q: "What is in the last cell of the fourth column of the Word table with all kinds of spans and empty cells?", type: 'what', expect: ["Cell 8.4"], doc: 'docling__word_tables.docx' },
  { q: "What does the merged cell covering rows 3 and 4 of the Word table with vertical spans say?", type: 'what', expect: ["Merged Cell 3.1 4.1"], doc: 'docling__word_tables.docx' },
  { q: "On Sheet1 of the test workbook, what is 'third' in the row where 'first' is 6?", type: 'what', expect: ["-6"], doc: 'docling__xlsx_01.xlsx' },
  { q: "On Sheet2 of the test workbook, what is col-2 in the row where col-1 is 6?", type: 'what', expect: ["12"], doc: 'docling__xlsx_01.xlsx' },
  { q: "What were Zone GC's sales from January to June 2023?", type: 'how much', expect: ["2548"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What trading operating profit did Zone NA report for the first half of 2022?", type: 'how much', expect: ["1829"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What was Nestlé's net financial expense in the first half of 2023?", type: 'how much', expect: ["-697", "697"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "How much depreciation and amortization did Nespresso record from January to June 2023?", type: 'how much', expect: ["-135", "135"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "How much impairment of intangible assets did Nestlé Health Science take in the first half of 2022?", type: 'how much', expect: ["-314", "314"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What do the 'Other businesses' in Nestlé's segment results consist of?", type: 'what', expect: ["not under the direct control of the Zones"], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What is the Spearman correlation between the unstimulated granulocyte frequency and the CD161 CD8 T cell frequency?", type: 'what', expect: ["-0.296319737"], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: "How strongly is the unstimulated pDC frequency correlated with the Ki67 CD8 frequency?", type: 'what', expect: ["-0.326082932"], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: "How many freshwater ducks did the duck survey record in 2021?", type: 'how many', expect: ["150"], doc: 'docling__pptx_chart.pptx' },
  { q: "What revenue does the quarterly revenue chart show for the second quarter?", type: 'how much', expect: ["20"], doc: 'docling__pptx_chart.pptx' },
  // receipts (through OCR)
  { q: "How much did the spray paint from Syarikat Perniagaan Gin Kee cost?", type: 'how much', expect: ["7.42"], doc: 'sroie__100.jpg' },
  { q: "What is the document number of the Gin Kee receipt for spray paint?", type: 'what', expect: ["CS00011955"], doc: 'sroie__100.jpg' },
  { q: "How much was paid at Gin Kee for the small load of fine sand?", type: 'how much', expect: ["148.40"], doc: 'sroie__103.jpg' },
  { q: "What was the total of the Al Mendis bill at The Mines?", type: 'how much', expect: ["48.15"], doc: 'sroie__107.jpg' },
  { q: "What service charge did Al Mendis add to the bill?", type: 'how much', expect: ["4.13"], doc: 'sroie__107.jpg' },
  { q: "Who was the cashier at Al Mendis at The Mines?", type: 'who', expect: ["TAMEEM"], doc: 'sroie__107.jpg' },
  { q: "How much did the almond cake cost at IKEA Cheras?", type: 'how much', expect: ["22.50"], doc: 'sroie__102.jpg' },
  { q: "What did the IKEA Cheras receipt of 23 December 2017 come to in total?", type: 'how much', expect: ["73.30"], doc: 'sroie__102.jpg' },
  { q: "How much was the bill at Chili's Grill & Bar KLCC?", type: 'how much', expect: ["102.40"], doc: 'sroie__104.jpg' },
  { q: "Within how many days must the Chili's guest experience survey be completed?", type: 'how many', expect: ["4 days"], doc: 'sroie__104.jpg' },
  { q: "Which company was the Beyond Brothers Hardware invoice billed to?", type: 'who', expect: ["PDP UTEK"], doc: 'sroie__106.jpg' },
  { q: "What was the total of the Beyond Brothers Hardware invoice?", type: 'how much', expect: ["599.45"], doc: 'sroie__106.jpg' },
  { q: "What did the YTL cement come to on the Beyond Brothers Hardware invoice?", type: 'how much', expect: ["101.76"], doc: 'sroie__106.jpg' },
  // answered by none of the documents (expect [], doc: the document nearest in topic): to be refused
  { q: "What was Nestlé's net profit for the full year 2023?", type: 'how much', expect: [], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: "What is the cannabis duty rate per gram of dried cannabis?", type: 'how much', expect: [], doc: 'pdflib__with_combed_fields.pdf' },
  { q: "What was the minimum social wage in Luxembourg in 2019?", type: 'how much', expect: [], doc: 'pdfjs__160F-2019.pdf' },
  { q: "How many confirmed COVID-19 cases did Korea report on 30 April 2020?", type: 'how many', expect: [], doc: 'docling__normal_4pages.pdf' },
  { q: "What top-20 retrieval accuracy does DPR reach on TriviaQA?", type: 'percent', expect: [], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "What sample size is recommended for a proportion of 0.95 at a design effect of 4.0?", type: 'how many', expect: [], doc: 'tables__us-034.pdf' },
  { q: "What did Robert Schneider AG charge Pia Rutschmann for snow clearing?", type: 'how much', expect: [], doc: 'docling__qr_bill_example.jpg' },
  { q: "At what time does the IKEA Cheras store open?", type: 'when', expect: [], doc: 'sroie__102.jpg' },
  { q: "How much tip was left at Chili's Grill & Bar KLCC?", type: 'how much', expect: [], doc: 'sroie__104.jpg' },
  { q: "On which GPUs were the DocLayNet baseline models trained?", type: 'which', expect: [], doc: 'docling__2206.01062.tif' },
];
