/**
 * The held-out question set of bench/chat.ts (`--set heldout`): questions kept out of the chat answerer's
 * development, mostly over corpus documents that the development set does not load, in a knowledge base
 * of their own. A change to the answerer is kept only when it does not make this set worse. Do not tune
 * the answerer against these questions: read only the totals.
 */
import type { Question } from './chat.js';

/** The knowledge base: documents with a text layer or text of their own (no OCR), a few without questions. */
export const DOCUMENTS = [
  'pdflib__with_combed_fields.pdf',
  'pdfjs__bug1669099.pdf',
  'pdflib__fancy_fields.pdf',
  'pdflib__dod_character.pdf',
  'docling__docx_checkboxes.docx',
  'docling__legacy_sample.doc',
  'unstructured__fake-doc-emphasized-text.doc',
  'docling__xlsx_01.xlsx',
  'docling__xlsx_05_table_with_title.xlsx',
  'unstructured__2023-half-year-analyses-by-segment.xlsx',
  'docling__legacy_sample.xls',
  'unstructured__tests-example.xls',
  'docling__pptx_chart.pptx',
  'unstructured__fake-power-point-table.pptx',
  'docling__legacy_sample.ppt',
  'unstructured__fake-power-point.ppt',
  'unstructured__csv-with-long-lines.csv',
  'tabula__us-012.pdf',
  'pdfjs__160F-2019.pdf',
  'docling__word_tables.docx',
  'striprtf__Example_text.rtf',
  'unstructured__fake-doc.rtf',
  'docling__powerpoint_sample.pptx',
  'docling__csv-comma.csv',
  'unstructured__norwich-city.txt',
  'docling__wiki_duck.html',
];

// prettier-ignore
export const QUESTIONS: Question[] = [
  { q: 'What fee did Huddersfield Town pay for Roberts?', type: 'how much', expect: ['275,000'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Which club signed Roberts in November 1993?', type: 'which', expect: ['Leicester City'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Against which opponent did Roberts get his first professional goal?', type: 'which', expect: ['Manchester United'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Which Huddersfield coach does Roberts credit for his success as a striker?', type: 'who', expect: ['Peter Withe'], doc: 'unstructured__norwich-city.txt' },
  { q: 'How many goals did Roberts get while at Huddersfield?', type: 'how many', expect: ['50 goals'], doc: 'unstructured__norwich-city.txt' },
  { q: 'Who scored 19 goals alongside Roberts that season?', type: 'who', expect: ['Craig Bellamy'], doc: 'unstructured__norwich-city.txt' },
  { q: 'What transfer fee did Wolves pay Leicester for Roberts?', type: 'how much', expect: ['1.3m'], doc: 'unstructured__norwich-city.txt' },
  { q: 'How many ducks are killed for meat every year?', type: 'how many', expect: ['3 billion'], doc: 'docling__wiki_duck.html' },
  { q: 'Which newspaper warned against giving bread to ducks?', type: 'which', expect: ['The Guardian'], doc: 'docling__wiki_duck.html' },
  { q: 'Who ran the LaughLab study about funny animals?', type: 'who', expect: ['Richard Wiseman'], doc: 'docling__wiki_duck.html' },
  { q: 'Which actor starred in The Mighty Ducks?', type: 'who', expect: ['Emilio Estevez'], doc: 'docling__wiki_duck.html' },
  { q: 'How much does the normal hackerspace membership of CCC Salzburg cost each month?', type: 'how much', expect: ['42€', '42 €'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'What is the annual price of a reduced CCC Salzburg membership?', type: 'how much', expect: ['35€', '35 €'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'Which bank does CCC Salzburg use?', type: 'which', expect: ['Salzburger Sparkasse'], doc: 'pdfjs__bug1669099.pdf' },
  { q: "What is the IBAN of CCC Salzburg's account?", type: 'what', expect: ['AT92 2040 4000 4096 8679'], doc: 'pdfjs__bug1669099.pdf' },
  { q: 'To which agency must the cannabis duty return be sent?', type: 'who', expect: ['Canada Revenue Agency'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'What is the deadline for filing the cannabis duty return?', type: 'when', expect: ['last day of the month'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'What telephone number gives more information on cannabis excise?', type: 'what', expect: ['1-866-330-3304'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'Under which statute is the cannabis duty and information return filed?', type: 'which', expect: ['Excise Act, 2001'], doc: 'pdflib__with_combed_fields.pdf' },
  { q: 'What were the sales of Nespresso in the first half of 2023?', type: 'how much', expect: ['3128'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'How much did PetCare sell between January and June 2023?', type: 'how much', expect: ['9373'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'In which currency are the segment results stated?', type: 'what', expect: ['CHF'], doc: 'unstructured__2023-half-year-analyses-by-segment.xlsx' },
  { q: 'How many saltwater ducks were counted in 2021?', type: 'how many', expect: ['110'], doc: 'docling__pptx_chart.pptx' },
  { q: 'How many freshwater ducks were recorded in 2023?', type: 'how many', expect: ['160'], doc: 'docling__xlsx_05_table_with_title.xlsx', also: ['docling__legacy_sample.xls'] },
  { q: 'For which company does Sheryl Baxter work?', type: 'who', expect: ['Rasmussen Group'], doc: 'docling__csv-comma.csv' },
  { q: 'Which country does the customer Roy Berry live in?', type: 'where', expect: ['Antigua and Barbuda'], doc: 'docling__csv-comma.csv' },
  { q: 'When did Joanna Bender take out her subscription?', type: 'when', expect: ['2021-04-17'], doc: 'docling__csv-comma.csv' },
  { q: 'How many dollars is the student activities fee?', type: 'how much', expect: ['95'], doc: 'unstructured__tests-example.xls' },
  { q: 'What question type does the abbreviation ORD stand for?', type: 'what', expect: ['Ordering'], doc: 'unstructured__tests-example.xls' },
  { q: 'What is the calorie count of a serving of grain?', type: 'how many', expect: ['200'], doc: 'docling__legacy_sample.doc' },
  { q: 'Which kinds of leaves can a duck eat?', type: 'which', expect: ['Ash, Elm, Maple'], doc: 'docling__legacy_sample.doc' },
  { q: 'What does the abbreviation "na" mean in the exhibit?', type: 'what', expect: ['not available'], doc: 'tabula__us-012.pdf' },
  { q: 'In which states did no district go over the 1 percent cap?', type: 'where', expect: ['Alaska'], doc: 'tabula__us-012.pdf' },
  { q: 'When was version 1.0 of the Blackboard test template released?', type: 'when', expect: ['January 2012'], doc: 'unstructured__tests-example.xls' },
];
