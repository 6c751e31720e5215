import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { runnerArgs } from '../../test/helpers/built.js';

const root = path.resolve(import.meta.dirname, '../..');
const CORPUS = process.env.QUIRE_CORPUS ?? path.resolve(root, '../shared/corpus');
// the built command when the build is current (as users run it), else the sources under tsx
const args = (...a: string[]) => runnerArgs(...a);

async function makePdf(file: string, title: string, pages: number): Promise<void> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = pdf.addPage([612, 792]);
    page.drawText(`${title}: ${['Summary', 'Regional details', 'Outlook and risks'][p % 3]}`, { x: 72, y: 720, size: 18, font });
    for (let l = 0; l < 25; l++) page.drawText(`Line ${l + 1} of the ${title} report describes revenue and costs.`, { x: 72, y: 680 - l * 20, size: 11, font });
  }
  fs.writeFileSync(file, await pdf.save());
}

async function fixtureFolder(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-runner-in-'));
  fs.mkdirSync(path.join(dir, 'sub'));
  for (let i = 0; i < 12; i++) await makePdf(path.join(dir, i % 2 ? 'sub' : '.', `report-${i}.pdf`), `Report ${i}`, 3);
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'Meeting notes\n\nThe budget was approved.');
  fs.writeFileSync(path.join(dir, 'table.csv'), 'name,amount\nalpha,10\nbeta,20\n');
  fs.writeFileSync(path.join(dir, 'binary.xyz'), Buffer.from([0, 1, 2, 3, 250, 251]));
  fs.writeFileSync(path.join(dir, 'broken.pdf'), '%PDF-1.7\nthis is not really a pdf');
  // a few corpus files when the shared corpus is present
  if (fs.existsSync(path.join(CORPUS, 'manifest.json'))) {
    for (const f of ['docling__word_sample.docx', 'docling__xlsx_01.xlsx', 'unstructured__multi-column-2p.pdf']) {
      const src = path.join(CORPUS, 'files', f);
      if (fs.existsSync(src)) fs.copyFileSync(src, path.join(dir, f));
    }
  }
  return dir;
}

test('runner parses a folder, lists failures, exits non-zero, and resumes after an interruption', { timeout: 240_000 }, async (t) => {
  const input = await fixtureFolder();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-runner-out-'));
  t.after(() => {
    fs.rmSync(input, { recursive: true, force: true });
    fs.rmSync(out, { recursive: true, force: true });
  });
  // first run: interrupted as soon as the first result is written
  const child = spawn(process.execPath, args('parse', input, '--out', out, '--concurrency', '1'), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const killed = await new Promise<boolean>((resolve) => {
    const timer = setInterval(() => {
      const written = fs.existsSync(out) ? fs.readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('.json')) : [];
      if (written.length >= 1) {
        clearInterval(timer);
        resolve(child.kill('SIGKILL'));
      }
    }, 10);
    child.on('exit', () => {
      clearInterval(timer);
      resolve(false);
    });
  });
  await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.on('exit', r)));
  const afterFirst = fs.readdirSync(out, { recursive: true }).map(String).filter((f) => f.endsWith('.json'));
  assert.ok(afterFirst.length >= 1);
  assert.ok(!fs.readdirSync(out, { recursive: true }).map(String).some((f) => f.endsWith('.tmp')) || killed, 'no partial outputs when not killed');

  // second run: resumes, skipping what is done
  const r = spawnSync(process.execPath, args('parse', input, '--out', out, '--concurrency', '2'), { cwd: root, encoding: 'utf8', timeout: 200_000 });
  assert.equal(r.status, 1, `exit 1 because broken.pdf fails; stdout: ${r.stdout} stderr: ${r.stderr}`);
  const m = /parsed (\d+), skipped (\d+) \(already done\), unsupported (\d+), failed (\d+)/.exec(r.stdout);
  assert.ok(m, r.stdout);
  if (killed) assert.ok(Number(m![2]) >= 1, `skipped files done by the interrupted run: ${r.stdout}`);
  assert.equal(Number(m![3]), 1, 'binary.xyz is unsupported');
  assert.equal(Number(m![4]), 1, 'broken.pdf failed');
  assert.match(r.stdout, /FAILED: broken\.pdf: /);
  for (let i = 0; i < 12; i++) {
    const rel = path.join(i % 2 ? 'sub' : '.', `report-${i}.pdf`);
    const json = JSON.parse(fs.readFileSync(path.join(out, `${rel}.json`), 'utf8'));
    assert.equal(json.usage.num_pages, 3);
    assert.ok(json.result.chunks.length >= 1);
    assert.match(json.result.chunks.map((c: any) => c.content).join(' '), new RegExp(`Report ${i}: Outlook and risks`));
    assert.match(fs.readFileSync(path.join(out, `${rel}.md`), 'utf8'), /revenue and costs/);
  }
  const csv = JSON.parse(fs.readFileSync(path.join(out, 'table.csv.json'), 'utf8'));
  assert.ok(csv.result.chunks.some((c: any) => c.metadata.type === 'table'));

  // third run: everything already done
  const again = spawnSync(process.execPath, args('parse', input, '--out', out), { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.match(again.stdout, /parsed 0, skipped \d+ \(already done\)/);
});

test('runner refuses bad arguments with usage', () => {
  const r = spawnSync(process.execPath, args('parse'), { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: quire-runner parse/);
});
