/**
 * The corpus's scanned receipts (`<corpus>/receipts/`: files/*.jpg and key/<name>.json) read through the image
 * reader with the tesseract plugin's defaults: the share of receipts whose company, date and total appear
 * verbatim in the parsed text (case-insensitive, white-space runs collapsed) stays above a floor set well
 * below what bench/ocr.ts measures, so that the test is not flaky. Runs only where the corpus and tesseract are.
 * The test reads every fourth receipt (receipts-quarter.test.ts: 25 receipts), which keeps the suite's time
 * down; bench/ocr.ts measures all 100.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pluginContext } from '@quire/core';
import ocrPlugin from '@quire/plugin-ocr-tesseract';
import imagePlugin from '@quire/plugin-reader-image';
import { foundVerbatim, loadReceipts, receiptsDir } from '../../../test/helpers/receipts.js';

const dir = receiptsDir();
const hasTesseract = (() => {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

export interface Floors {
  company: number;
  date: number;
  total: number;
}

/** Reads the receipts whose number is `rest` modulo `mod` and asserts the floors (shares of receipts, 0..1). */
export function receiptsTest(mod: number, rest: number, floors: Floors): void {
  test(`corpus receipts (numbers ${rest} modulo ${mod}): company, date and total verbatim in the OCR text of most`, { skip: !dir || !hasTesseract }, async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-receipts-'));
    try {
      const shared = { 'ocr.concurrency': 2, 'ocr.language': 'eng' };
      const ocr = await ocrPlugin.create(pluginContext(ocrPlugin, { shared, dataDir: tmp }));
      const reader = (await imagePlugin.create(pluginContext(imagePlugin, { dataDir: tmp, tryGet: ((kind: string) => (kind === 'ocr' ? ocr : undefined)) as never }))) as any;
      const cases = loadReceipts(dir!).filter((c) => Number(/(\d+)$/.exec(c.id)?.[1] ?? 0) % mod === rest);
      assert.ok(cases.length >= 20, `only ${cases.length} receipts`);
      const hits = { company: 0, date: 0, total: 0 };
      const of = { company: 0, date: 0, total: 0 };
      let next = 0;
      const work = async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          const doc = await reader.read({ path: c.file, name: path.basename(c.file), format: path.extname(c.file).slice(1).toLowerCase(), size: fs.statSync(c.file).size, documentId: c.id }, { ocr: { enabled: 'auto', language: 'eng' } });
          for (const f of Object.keys(hits) as (keyof typeof hits)[]) {
            if (!c.key[f]) continue;
            of[f]++;
            if (foundVerbatim(doc.text, c.key[f]!)) hits[f]++;
          }
        }
      };
      await Promise.all([work(), work()]);
      console.log(`receipts ${rest} mod ${mod} (${cases.length}): ${(Object.keys(hits) as (keyof typeof hits)[]).map((f) => `${f} ${hits[f]}/${of[f]}`).join(', ')}`);
      for (const f of Object.keys(hits) as (keyof typeof hits)[]) {
        const share = hits[f] / Math.max(1, of[f]);
        assert.ok(share >= floors[f], `${f}: verbatim in ${hits[f]} of ${of[f]} receipts (${(100 * share).toFixed(0)} %), floor ${Math.round(100 * floors[f])} %`);
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}
