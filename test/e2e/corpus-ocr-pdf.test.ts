// The corpus over HTTP, image-only PDFs, read by OCR (suite in test/helpers/corpus-e2e.ts).
import { corpusSuite } from '../helpers/corpus-e2e.js';

corpusSuite('ocr-pdf');
