// The corpus over HTTP, csv, xlsx, xls, pptx, ppt (suite in test/helpers/corpus-e2e.ts).
import { corpusSuite } from '../helpers/corpus-e2e.js';

corpusSuite('sheets-slides');
