// The corpus over HTTP, born-digital PDFs: reports, papers, invoices, forms (suite in test/helpers/corpus-e2e.ts).
import { corpusSuite } from '../helpers/corpus-e2e.js';

corpusSuite('pdf');
