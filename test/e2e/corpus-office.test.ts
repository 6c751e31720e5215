// The corpus over HTTP, docx, doc, rtf, html, txt (suite in test/helpers/corpus-e2e.ts).
import { corpusSuite } from '../helpers/corpus-e2e.js';

corpusSuite('office');
