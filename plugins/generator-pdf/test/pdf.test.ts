import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { pluginContext } from '@quire/core';
import type { GeneratedDocumentModel } from '@quire/core';
import def, { PdfGenerator } from '@quire/plugin-generator-pdf';

/** The pdf writer: one browser for many pdfs (the pool bounds the pages), text extractable, closed without leftovers; a missing binary is named. */
const CHROMIUM = process.env.QUIRE_CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);

const model = (i: number): GeneratedDocumentModel => ({ title: `Document ${i}`, citations: [], blocks: [{ type: 'paragraph', text: `Body text number ${i}.` }, { type: 'table', header: ['Key', 'Value'], rows: [['n', String(i)]] }] });

/** Processes whose parent is this process and whose command is the browser. */
function browserChildren(): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && /chrom/i.test(fs.readFileSync(`/proc/${d}/cmdline`, 'utf8'))) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

test('six pdfs, three at a time through a pool of two pages: one browser, text in each, nothing left after close', { skip: hasChromium ? false : `no Chromium at ${CHROMIUM}` }, async () => {
  const g = (await def.create(pluginContext(def, { options: { chromium: CHROMIUM, pages: 2 } }) as never)) as PdfGenerator;
  assert.equal((await g.health()).ok, true);
  try {
    const outs = await Promise.all([0, 1, 2].map((i) => g.generate({ format: 'pdf', document: model(i) })));
    outs.push(...(await Promise.all([3, 4, 5].map((i) => g.generate({ format: 'pdf', document: model(i) })))));
    assert.equal(g.launches, 1, 'one browser for all');
    assert.equal(browserChildren().length, 1, 'one browser process is a child of this one');
    outs.forEach((o, i) => {
      assert.equal(o.mime, 'application/pdf');
      assert.equal(o.bytes.subarray(0, 5).toString(), '%PDF-');
      if (fs.existsSync('/usr/bin/pdftotext')) assert.match(execFileSync('pdftotext', ['-', '-'], { input: o.bytes, encoding: 'utf8' }), new RegExp(`Document ${i}[\\s\\S]*Body text number ${i}\\.`));
    });
  } finally {
    await g.close();
  }
  assert.deepEqual(browserChildren(), [], 'the browser is gone after close');
});

test('a missing Chromium: health says so and generate fails with SERVICE_UNAVAILABLE naming the path', async () => {
  const missing = '/nonexistent/chromium';
  const g = (await def.create(pluginContext(def, { options: { chromium: missing } }) as never)) as PdfGenerator;
  const h = await g.health();
  assert.equal(h.ok, false);
  assert.match(h.message!, /\/nonexistent\/chromium/);
  await assert.rejects(g.generate({ format: 'pdf', document: model(1) }), (e: any) => e.code === 'SERVICE_UNAVAILABLE' && e.message.includes(missing));
  assert.equal(g.launches, 0);
  await g.close();
});
