/**
 * A 1,000-page PDF (pages of a corpus document drawn again and again with pdf-lib, or generated text pages when the
 * corpus is absent) parsed end to end: time, pages/s, peak RSS of this process and of it with its worker processes.
 * Usage: node --conditions=quire-source --import tsx plugins/reader-pdf/bench/big.ts [pages]
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { pluginContext } from '@quire/core';
import pdfPlugin from '@quire/plugin-reader-pdf';
import type { PdfReader } from '@quire/plugin-reader-pdf';

const want = Number(process.argv[2] ?? 1000);
const corpus = path.resolve(process.env.QUIRE_CORPUS ?? path.join(import.meta.dirname, '../../../../shared/corpus'));
const src = path.join(corpus, 'files/docling__redp5110_sampled.pdf');
const out = path.join(os.tmpdir(), `quire-big-shared-${want}.pdf`);
if (!fs.existsSync(out)) {
  const big = await PDFDocument.create();
  if (fs.existsSync(src)) {
    // the donor's pages embedded once and drawn on every new page: one set of fonts and images shared
    // by all pages, as in a long book or report
    const donor = await PDFDocument.load(fs.readFileSync(src));
    const embedded = await big.embedPages(donor.getPages());
    for (let i = 0; i < want; i++) {
      const e = embedded[i % embedded.length]!;
      big.addPage([e.width, e.height]).drawPage(e);
    }
  } else {
    const font = await big.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < want; i++) {
      const page = big.addPage([612, 792]);
      for (let l = 0; l < 45; l++) page.drawText(`Page ${i + 1} line ${l + 1}: the quick brown fox jumps over the lazy dog.`, { x: 50, y: 740 - l * 15, size: 10, font });
    }
  }
  fs.writeFileSync(out, await big.save());
}
const workers = Number(process.env.QUIRE_PDF_WORKERS ?? 2);
const reader = pdfPlugin.create(pluginContext(pdfPlugin, { options: { workers, prestart: false }, shared: { 'limits.parseTimeoutMs': 600_000, 'ocr.concurrency': 2 } })) as unknown as PdfReader;
/** RSS of this process and its descendants (the parse workers are child processes), KiB, from ps */
const treeRss = (): number => {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,rss='], { encoding: 'utf8' }).trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  const inTree = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of rows) if (!inTree.has(pid!) && inTree.has(ppid!)) (inTree.add(pid!), (grew = true));
  }
  return rows.filter(([pid]) => inTree.has(pid!)).reduce((a, r) => a + r[2]!, 0);
};
let peakTree = 0;
const sampler = setInterval(() => (peakTree = Math.max(peakTree, treeRss())), 100);
const cpu0 = process.cpuUsage();
const t = performance.now();
const doc = await reader.read({ path: out, name: 'big.pdf', format: 'pdf', size: fs.statSync(out).size, documentId: 'big' }, { ocr: { enabled: false, language: 'eng' } });
const s = (performance.now() - t) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(`${doc.pages.length} pages (${(fs.statSync(out).size / 1048576).toFixed(1)} MB) in ${s.toFixed(1)} s = ${(doc.pages.length / s).toFixed(1)} pages/s; CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; text ${(doc.text.length / 1e6).toFixed(1)} M chars, ${doc.blocks.length} blocks, ${doc.tables.length} tables`);
clearInterval(sampler);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB of this process; peak RSS of the process and its ${workers} workers together ${(peakTree / 1024).toFixed(0)} MiB (ps, every 100 ms)`);
await reader.close();
