/**
 * The tenth blind question set of bench/chat.ts (`--set blind9`). Written on 2026-11-29 from the chunk text alone (the
 * output of `bench/chat.ts --set blind9 --dump dir`, which parses the documents and asks no question): no question was put
 * to the answerer while the set was written, no answer was read, and the answerer's code was not read. Its 24 documents
 * mirror what users upload: prose PDFs (a two-column retrieval paper, an 18-page IBM Redpaper and a Korean parliamentary
 * brief), forms (a 13-page government return with combed fields and a character sheet), invoices (the AWS invoice as an
 * image, through OCR, the German QualityHosting invoice and a Swiss QR bill photo, through OCR), four table PDFs of
 * `<corpus>/tables` (E-PRTR pollutant thresholds, a Salmonella zoonoses report, a bank's CRA evaluation and a federal
 * student loan guide), office files (a Word document with checkboxes, a multi-sheet workbook, a wide CSV correlation
 * matrix, a slide with a table and a legacy Word 97 document), a scanned paper page (TIFF, through OCR), and six SROIE
 * receipts of `<corpus>/receipts/files` that no earlier set names (an electrical wholesaler, a restaurant, a bookshop, a
 * pharmacy, a hardware chain and a petrol station). The documents were chosen among the least loaded by earlier sets
 * (counted over bench/chat-*.ts): the receipts had never been loaded, the table PDFs once or twice; the other documents had
 * been loaded by several sets, and their questions go to what those sets had not asked (each question was checked by a
 * script against the earlier sets' questions on the same document: no same expected string, no near-identical wording).
 * The questions ask, in other words than the documents', for dates, amounts, counts, names, identifiers (account, slip,
 * receipt, GST and invoice numbers, an ISSN), table cells (row × column), reasons, titles and labels in German and Korean.
 * Every expected string occurs (case-insensitive, whitespace collapsed) in one chunk of its document, as dumped (checked
 * with a script over the dump). The last ten questions have `expect: []`: their answer is in none of the documents
 * (checked by searching the dump), so the answer must be a refusal; `doc` names the document nearest in topic.
 * bench/chat.ts counts such a refusal as "refused" and any other answer as "wrong".
 */
import type { Question } from './chat-question.js';

export const DOCUMENTS = [
  // prose PDFs: a two-column paper, a long report, a Korean brief
  'unstructured__multi-column-2p.pdf',
  'docling__redp5110_sampled.pdf',
  'docling__normal_4pages.pdf',
  // forms: a 13-page government return (combed fields), a character sheet
  'pdflib__with_combed_fields.pdf',
  'pdflib__dod_character.pdf',
  // invoices: the AWS invoice (image, through OCR), a German invoice, a Swiss QR bill (photo, through OCR)
  'invoice2data__AmazonWebServices.png',
  'invoice2data__QualityHosting.pdf',
  'docling__qr_bill_example.jpg',
  // table PDFs of <corpus>/tables
  'tables__eu-001.pdf',
  'tables__eu-016.pdf',
  'tables__us-004.pdf',
  'tables__us-036.pdf',
  // office files
  'docling__docx_checkboxes.docx',
  'docling__xlsx_01.xlsx',
  'unstructured__csv-with-long-lines.csv',
  'unstructured__fake-power-point-table.pptx',
  'docling__legacy_sample.doc',
  // a scanned paper page (TIFF, through OCR)
  'docling__2206.01062.tif',
  // receipt scans of <corpus>/receipts/files no set names (through OCR)
  'sroie__133.jpg',
  'sroie__146.jpg',
  'sroie__153.jpg',
  'sroie__171.jpg',
  'sroie__172.jpg',
  'sroie__180.jpg',
];

// prettier-ignore
export const QUESTIONS: Question[] = [
  // a two-column retrieval paper
  { q: "Which industrial research lab are most of the dense passage retrieval authors from?", type: 'which', expect: ["Facebook AI"], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "Besides Princeton, which university is named among the DPR paper's affiliations?", type: 'which', expect: ["University of Washington"], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "What kind of encoder architecture does DPR pair with the pretrained BERT model?", type: 'what', expect: ["dual-encoder"], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "How many passages k does a retriever usually return to the reader, according to the DPR paper?", type: 'how many', expect: ["20–100"], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "In which QA setting must the answer be a span found in the passages?", type: 'what', expect: ["extractive QA setting"], doc: 'unstructured__multi-column-2p.pdf' },
  // an IBM Redpaper (18 pages)
  { q: "What is the title of the IBM Redpaper on RCAC?", type: 'what', expect: ["Row and Column Access Control Support in IBM DB2 for i"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "Which CL command shows function usage IDs without changing them?", type: 'which', expect: ["DSPFCNUSG"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "Which SQL type holds the client host name among the built-in global variables?", type: 'what', expect: ["VARCHAR(255)"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "What does VERIFY_GROUP_FOR_USER give back when the user belongs to one of the listed groups?", type: 'what', expect: ["long integer value of 1"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "Where did Jim Bainbridge start his IBM career?", type: 'where', expect: ["IBM Rochester Development Lab"], doc: 'docling__redp5110_sampled.pdf' },
  { q: "How does someone who is neither in HR nor a manager see an employee's tax ID once the mask is active?", type: 'what', expect: ["XXX-XX-XXXX"], doc: 'docling__redp5110_sampled.pdf' },
  // a Korean National Assembly brief
  { q: "Who is the publisher of the Korean National Assembly Research Service brief?", type: 'who', expect: ["김하중"], doc: 'docling__normal_4pages.pdf' },
  { q: "What is the ISSN of the Korean issue brief series?", type: 'what', expect: ["2005-744X"], doc: 'docling__normal_4pages.pdf' },
  { q: "What is the direct telephone number of the author of the Korean brief on COVID-19 insurance?", type: 'what', expect: ["02-788-4582"], doc: 'docling__normal_4pages.pdf' },
  { q: "Which range of disease codes counts as accidental external injury in the life insurance disaster table?", type: 'which', expect: ["S80~Y84"], doc: 'docling__normal_4pages.pdf' },
  { q: "What is the name of the rule that unclear insurance terms are read against the party who wrote them?", type: 'what', expect: ["불이익의 해석원칙"], doc: 'docling__normal_4pages.pdf' },
  // a government return form (13 pages, combed fields)
  { q: "What edition date does the B300 cannabis return carry?", type: 'when', expect: ["09/2019"], doc: 'pdflib__with_combed_fields.pdf' },
  { q: "How is the total net amount on line 24 of the cannabis return worked out?", type: 'what', expect: ["subtract line 23 from line 22"], doc: 'pdflib__with_combed_fields.pdf' },
  { q: "Where can a business sign up to get its CRA mail by e-mail?", type: 'where', expect: ["canada.ca/cra-business-email-notifications"], doc: 'pdflib__with_combed_fields.pdf' },
  // a character sheet form
  { q: "Where on the character sheet would a player note the gold and valuables the hero carries?", type: 'which', expect: ["TREASURE"], doc: 'pdflib__dod_character.pdf' },
  { q: "Apart from age and height, which features of the character's look does the sheet list?", type: 'what', expect: ["SKIN", "HAIR"], doc: 'pdflib__dod_character.pdf' },
  // an AWS invoice (image, through OCR)
  { q: "Which page of the AWS console holds the account history and per-service charge details?", type: 'which', expect: ["Account Activity Page"], doc: 'invoice2data__AmazonWebServices.png' },
  { q: "How much credit was applied on the July 2014 AWS invoice?", type: 'how much', expect: ["Credits $0.00"], doc: 'invoice2data__AmazonWebServices.png' },
  { q: "Which statement is attached at the end of the AWS invoice?", type: 'which', expect: ["GST statement"], doc: 'invoice2data__AmazonWebServices.png' },
  // a German hosting invoice
  { q: "What are the payment terms of the QualityHosting invoice?", type: 'what', expect: ["14 Tage netto"], doc: 'invoice2data__QualityHosting.pdf' },
  { q: "Which service name is billed in the first position of the QualityHosting invoice?", type: 'which', expect: ["OUDJQ_strukan"], doc: 'invoice2data__QualityHosting.pdf' },
  { q: "What is the postcode of QualityHosting AG?", type: 'what', expect: ["D-63571"], doc: 'invoice2data__QualityHosting.pdf' },
  // a Swiss QR bill (image, through OCR)
  { q: "How much VAT does the garden work bill charge?", type: 'how much', expect: ["282.40"], doc: 'docling__qr_bill_example.jpg' },
  { q: "What hourly rate does Robert Schneider AG charge for garden work?", type: 'how much', expect: ["120.00"], doc: 'docling__qr_bill_example.jpg' },
  { q: "At what e-mail address can Robert Schneider AG be reached?", type: 'what', expect: ["robert@rschneider.ch"], doc: 'docling__qr_bill_example.jpg' },
  { q: "What is the mobile number of Robert Schneider AG?", type: 'what', expect: ["079/9876543"], doc: 'docling__qr_bill_example.jpg' },
  // table PDFs: E-PRTR pollutant thresholds
  { q: "Above what yearly release to air must carbon monoxide be reported under E-PRTR?", type: 'how much', expect: ["500 000"], doc: 'tables__eu-001.pdf' },
  { q: "How much benzene may a facility discharge into water each year before it must report it?", type: 'how much', expect: ["200 (as BTEX)"], doc: 'tables__eu-001.pdf' },
  { q: "How much dioxins and furans released to land must be reported under E-PRTR?", type: 'how much', expect: ["0,0001"], doc: 'tables__eu-001.pdf' },
  { q: "From what yearly amount of total phosphorus going into water does reporting start?", type: 'how much', expect: ["5 000"], doc: 'tables__eu-001.pdf' },
  { q: "Above how many kilograms a year must particulate matter PM10 to air be reported?", type: 'how much', expect: ["50 000"], doc: 'tables__eu-001.pdf' },
  // a zoonoses report (Salmonella)
  { q: "What share of Austria's Salmonella cases were imported?", type: 'percent', expect: ["13.8"], doc: 'tables__eu-016.pdf' },
  { q: "How many confirmed salmonellosis cases did Germany report in the origin table?", type: 'how many', expect: ["55,400"], doc: 'tables__eu-016.pdf' },
  { q: "For what share of the reported Salmonella cases was the age known?", type: 'percent', expect: ["86.3%"], doc: 'tables__eu-016.pdf' },
  { q: "What proportion of Salmonella cases were acquired while travelling abroad in 2006?", type: 'percent', expect: ["8.0%"], doc: 'tables__eu-016.pdf' },
  { q: "In which seasons do reported Salmonella cases peak?", type: 'when', expect: ["summer and autumn"], doc: 'tables__eu-016.pdf' },
  { q: "Which serovar shows a much sharper summer peak than the others?", type: 'which', expect: ["S. Enteritidis"], doc: 'tables__eu-016.pdf' },
  // a bank's CRA performance evaluation
  { q: "How large were BNY Mellon's liabilities in mid-2011?", type: 'how much', expect: ["$219.2 billion"], doc: 'tables__us-004.pdf' },
  { q: "How much did BNY Mellon hold in net loans and leases per the June 2011 Call Report?", type: 'how much', expect: ["$25.1 billion"], doc: 'tables__us-004.pdf' },
  { q: "How many census tracts are in BNY Mellon's assessment area?", type: 'how many', expect: ["2,605"], doc: 'tables__us-004.pdf' },
  { q: "How many of the census tracts in the assessment area are low-income?", type: 'how many', expect: ["329"], doc: 'tables__us-004.pdf' },
  { q: "Among how many deposit-taking institutions does BNY Mellon rank second in its area?", type: 'how many', expect: ["139"], doc: 'tables__us-004.pdf' },
  { q: "What were BNY Mellon's lease financing receivables on 6/30/2011, in thousands?", type: 'how much', expect: ["2,780,000"], doc: 'tables__us-004.pdf' },
  { q: "Which affiliates' affordable housing investments were counted in BNY Mellon's totals?", type: 'which', expect: ["BNY Aurora Holding Corporation"], doc: 'tables__us-004.pdf' },
  // a federal student loan guide
  { q: "Which fees does the student loan guide give as examples of school fees?", type: 'what', expect: ["parking decal fees"], doc: 'tables__us-036.pdf' },
  { q: "Who at a high school can help with planning for college?", type: 'who', expect: ["guidance counselor"], doc: 'tables__us-036.pdf' },
  { q: "Why does the guide focus on loans rather than grants?", type: 'what', expect: ["largest source of federal student aid"], doc: 'tables__us-036.pdf' },
  { q: "Where can one find details on federal grant and work-study programs?", type: 'where', expect: ["studentaid.ed.gov/applying"], doc: 'tables__us-036.pdf' },
  { q: "How does the student loan guide describe grants?", type: 'what', expect: ["free money that doesn’t have to be repaid"], doc: 'tables__us-036.pdf' },
  // office files
  { q: "What is the heading above the table of services in the checkbox document?", type: 'what', expect: ["Table with options"], doc: 'docling__docx_checkboxes.docx' },
  { q: "How many breakfast options may one pick in the list of services?", type: 'how many', expect: ["as many as you like"], doc: 'docling__docx_checkboxes.docx' },
  { q: "In the second sheet of the test workbook, which number does col-4 show when col-1 equals 7?", type: 'what', expect: ["28"], doc: 'docling__xlsx_01.xlsx' },
  { q: "Which col-3 figure goes with col-1 = 6 in the workbook's Sheet2?", type: 'what', expect: ["18"], doc: 'docling__xlsx_01.xlsx' },
  { q: "How are basophil P38 levels without stimulation related to CD161 CD8 T cell frequency, by rank correlation?", type: 'what', expect: ["0.429845626"], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: "What coefficient links unstimulated basophil Zap70/Syk to Ki67 CD8 frequency?", type: 'what', expect: ["-0.497615425"], doc: 'unstructured__csv-with-long-lines.csv' },
  { q: "What colour ends the top row of the table on the slide?", type: 'which', expect: ["Blue"], doc: 'unstructured__fake-power-point-table.pptx' },
  { q: "Which colour sits in the third column of the Tangerine row?", type: 'which', expect: ["Aqua"], doc: 'unstructured__fake-power-point-table.pptx' },
  { q: "According to the legacy Word duck document, what matters after a good day of swimming?", type: 'what', expect: ["eat something nice"], doc: 'docling__legacy_sample.doc' },
  { q: "What is the heading of the food section in the legacy Word duck document?", type: 'what', expect: ["Let’s eat"], doc: 'docling__legacy_sample.doc' },
  // a scanned paper page (TIFF, through OCR)
  { q: "Which task is the DocLayNet data set made for?", type: 'what', expect: ["Document-Layout Analysis"], doc: 'docling__2206.01062.tif' },
  { q: "Which other layout data set is DocLayNet compared with?", type: 'which', expect: ["DocBank"], doc: 'docling__2206.01062.tif' },
  // receipts (through OCR)
  { q: "What did the customer buy at ASO Electrical Trading?", type: 'what', expect: ["HAGER TIMER"], doc: 'sroie__133.jpg' },
  { q: "What is the receipt number of the ASO Electrical Trading purchase?", type: 'what', expect: ["CS00087400"], doc: 'sroie__133.jpg' },
  { q: "How much GST was charged at ASO Electrical Trading?", type: 'how much', expect: ["14.04"], doc: 'sroie__133.jpg' },
  { q: "On what date was the timer bought at ASO Electrical Trading?", type: 'when', expect: ["27/09/2017"], doc: 'sroie__133.jpg' },
  { q: "How much was the service charge at PappaRich BMC?", type: 'how much', expect: ["6.25"], doc: 'sroie__146.jpg' },
  { q: "What was the total of the PappaRich BMC bill before rounding?", type: 'how much', expect: ["72.93"], doc: 'sroie__146.jpg' },
  { q: "What did the Milo Dino cost at PappaRich?", type: 'how much', expect: ["7.45"], doc: 'sroie__146.jpg' },
  { q: "What is the GST ID of PappaRich BMC?", type: 'what', expect: ["000164270080"], doc: 'sroie__146.jpg' },
  { q: "What is the slip number of the Popular Book receipt?", type: 'what', expect: ["0010291725"], doc: 'sroie__153.jpg' },
  { q: "What did the Popular Book cashier hand back from the RM 50 note?", type: 'how much', expect: ["35.35"], doc: 'sroie__153.jpg' },
  { q: "What did the ring file cost at Popular Book?", type: 'how much', expect: ["6.99"], doc: 'sroie__153.jpg' },
  { q: "Who served the customer at Popular Book KSL City?", type: 'who', expect: ["Cheah Pei Ni"], doc: 'sroie__153.jpg' },
  { q: "How much did the customer save at Guardian?", type: 'how much', expect: ["11.60"], doc: 'sroie__171.jpg' },
  { q: "What is the telephone number of the Guardian store?", type: 'what', expect: ["03-62584088"], doc: 'sroie__171.jpg' },
  { q: "Which items can never be returned at Guardian?", type: 'what', expect: ["Dispensed medicines"], doc: 'sroie__171.jpg' },
  { q: "How many different items were on the MR. D.I.Y. receipt?", type: 'how many', expect: ["Item(s):8"], doc: 'sroie__172.jpg' },
  { q: "What did one door guard ECO08 cost at MR. D.I.Y.?", type: 'how much', expect: ["4.50"], doc: 'sroie__172.jpg' },
  { q: "Which operator served the customer at MR. D.I.Y. Kuchai?", type: 'who', expect: ["NOOR FATIN NAJIBAH"], doc: 'sroie__172.jpg' },
  { q: "When did the customer shop at MR. D.I.Y. Kuchai for the epoxy putty?", type: 'when', expect: ["16-03-18"], doc: 'sroie__172.jpg' },
  { q: "What is the invoice number of the BHPetrol Subang Airport receipt?", type: 'what', expect: ["1-916166"], doc: 'sroie__180.jpg' },
  { q: "Which fuel grade was bought at BHPetrol Subang Airport?", type: 'which', expect: ["infiniti 97"], doc: 'sroie__180.jpg' },
  { q: "How many reward points did the BHPetrol customer earn?", type: 'how many', expect: ["Earned 41"], doc: 'sroie__180.jpg' },
  { q: "Which phone line does BHPetrol print for its customers to call?", type: 'what', expect: ["1-300-22-2828"], doc: 'sroie__180.jpg' },
  // answered by none of the documents (expect [], doc: the document nearest in topic): to be refused
  { q: "What is the E-PRTR release threshold for ozone to air?", type: 'how much', expect: [], doc: 'tables__eu-001.pdf' },
  { q: "How many confirmed Salmonella cases did Greece report in 2007?", type: 'how many', expect: [], doc: 'tables__eu-016.pdf' },
  { q: "What net income did BNY Mellon earn in 2010?", type: 'how much', expect: [], doc: 'tables__us-004.pdf' },
  { q: "How much did Amazon Route 53 cost on the July 2014 AWS invoice?", type: 'how much', expect: [], doc: 'invoice2data__AmazonWebServices.png' },
  { q: "How much does QualityHosting charge per month for a SharePoint site on the invoice?", type: 'how much', expect: [], doc: 'invoice2data__QualityHosting.pdf' },
  { q: "How much tip was left at PappaRich BMC?", type: 'how much', expect: [], doc: 'sroie__146.jpg' },
  { q: "In which year did Jim Bainbridge join the DB2 for i Center of Excellence?", type: 'when', expect: [], doc: 'docling__redp5110_sampled.pdf' },
  { q: "How many GPUs were used to train the dense passage retriever?", type: 'how many', expect: [], doc: 'unstructured__multi-column-2p.pdf' },
  { q: "How much did Korean life insurers pay out in disaster benefits for COVID-19?", type: 'how much', expect: [], doc: 'docling__normal_4pages.pdf' },
  { q: "What interest rate do federal Direct Subsidized Loans carry?", type: 'percent', expect: [], doc: 'tables__us-036.pdf' },
];
