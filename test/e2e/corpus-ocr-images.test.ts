// The corpus over HTTP, images (png, jpg, tiff), read by OCR (suite in test/helpers/corpus-e2e.ts). A sample: every
// format and kind of image stays (text page, magazine page, receipt, invoice, bill, table, two-page TIFF); the files
// left out repeat a kind and format kept, and bench/parse.ts uploads every corpus image through the API to completed.
import { corpusSuite } from '../helpers/corpus-e2e.js';

const RECEIPT = 'a receipt photo (jpg) like sroie__000.jpg, which stays; plugins/reader-image/test/receipts-quarter.test.ts reads 25 receipts of the same set, bench/ocr.ts all 100';
corpusSuite('ocr-images', {
  leaveOut: {
    'sroie__001.jpg': RECEIPT,
    'sroie__002.jpg': RECEIPT,
    'invoice2data__AmazonWebServices.png': 'an invoice (png) like invoice2data__oyo.png, which stays',
  },
});
