import { receiptsTest } from './receipts-corpus.js';

// MEASURE
receiptsTest(4, 0, { company: 0, date: 0, total: 0 });
