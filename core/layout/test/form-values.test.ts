import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument } from 'pdf-lib';
import { FORM_VALUES_MAX_OBJECTS, formValues, pdfObjectCount } from '@quire/layout/form-values';

test('a real form is counted by its objects and read; a file of too many objects is left to PDFium', async () => {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([300, 200]);
  const form = pdf.getForm();
  const name = form.createTextField('applicant.name');
  name.setText('Jane Doe');
  name.addToPage(page, { x: 20, y: 100, width: 200, height: 20 });
  const plain = await pdf.save({ useObjectStreams: false });
  const packed = await pdf.save({ useObjectStreams: true });
  for (const bytes of [plain, packed]) {
    const n = pdfObjectCount(bytes);
    assert.ok(n >= 5 && n < 100, `objects counted: ${n}`);
    assert.deepEqual((await formValues(bytes)).get('applicant.name'), { type: 'text', value: 'Jane Doe' });
  }

  // objects packed in a stream count by the number the stream declares, and a stream that declares none counts
  // as too many: pdf-lib would parse them all at load
  const header = '%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n';
  const declared = Buffer.from(`${header}2 0 obj\n<< /Type /ObjStm /N ${FORM_VALUES_MAX_OBJECTS + 5} /First 10 /Length 0 >>\nstream\n\nendstream\nendobj\n`, 'latin1');
  assert.ok(pdfObjectCount(declared) > FORM_VALUES_MAX_OBJECTS);
  const undeclared = Buffer.from(`${header}2 0 obj\n<< /Type /ObjStm /First 10 /Length 0 >>\nstream\n\nendstream\nendobj\n`, 'latin1');
  assert.ok(pdfObjectCount(undeclared) > FORM_VALUES_MAX_OBJECTS);
  const many = Buffer.from(header + Array.from({ length: FORM_VALUES_MAX_OBJECTS + 1 }, (_, i) => `${i + 2} 0 obj\n<< /C ${i} >>\nendobj\n`).join(''), 'latin1');
  assert.ok(pdfObjectCount(many) > FORM_VALUES_MAX_OBJECTS);
  assert.equal((await formValues(many)).size, 0);
});
