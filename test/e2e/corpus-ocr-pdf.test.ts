// The corpus over HTTP, image-only PDFs, read by OCR (suite in test/helpers/corpus-e2e.ts). A sample: every kind of
// scanned PDF stays (a text page with its reference text, a table with merged cells, four pages turned 0/180/90/270);
// the file left out repeats a kind kept (a one-page scan of prose, with no reference text, so only its completion
// was checked here), and bench/parse.ts uploads every corpus PDF through the API to completed.
import { corpusSuite } from '../helpers/corpus-e2e.js';

corpusSuite('ocr-pdf', {
  leaveOut: {
    'unstructured__loremipsum-flat.pdf': 'a one-page scan of prose like docling__ocr_test.pdf, which stays and is compared with its reference text; the same OCR of a rendered page reads both',
  },
});
