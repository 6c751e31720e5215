// Edit over HTTP: plain-language instructions in French, German, Spanish and Dutch ("Nom : Dupont",
// "Vorname ist Hans", "fecha de nacimiento 4 abril 1990", "Geslacht: man") read into field/value pairs
// through the business-label lexicon and month names, on a form printed in English, and the other way
// round (English instructions on a form printed in German); each value lands in its field, none in a field
// of another type, and verification passes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { readBack, uploadDone } from './edit-fixtures.js';

/** A form printed with the given captions: text fields, a date field (MM/DD/YYYY) and a two-button sex radio. */
async function personPdf(captions: { first: string; last: string; dob: string; city: string; zip: string; sex: string; male: string; female: string }): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  const form = doc.getForm();
  const text = (name: string, label: string, y: number) => {
    page.drawText(label, { x: 60, y: y + 5, size: 11, font });
    form.createTextField(name).addToPage(page, { x: 250, y, width: 200, height: 20, font });
  };
  text('p.first', `${captions.first}:`, 700);
  text('p.last', `${captions.last}:`, 670);
  text('p.dob', `${captions.dob}:`, 640);
  text('p.city', `${captions.city}:`, 610);
  text('p.zip', `${captions.zip}:`, 580);
  page.drawText(`${captions.sex}:`, { x: 60, y: 555, size: 11, font });
  const sex = form.createRadioGroup('p.sex');
  ['M', 'F'].forEach((v, k) => {
    sex.addOptionToPage(v, page, { x: 250 + k * 100, y: 551, width: 14, height: 14 });
    page.drawText(k ? captions.female : captions.male, { x: 270 + k * 100, y: 554, size: 11, font });
  });
  form.updateFieldAppearances(font);
  return doc.save();
}

const ENGLISH = { first: 'First name', last: 'Last name', dob: 'Date of birth (MM/DD/YYYY)', city: 'City', zip: 'ZIP code', sex: 'Sex', male: 'Male', female: 'Female' };
const GERMAN = { first: 'Vorname', last: 'Nachname', dob: 'Geburtsdatum', city: 'Wohnort', zip: 'PLZ', sex: 'Geschlecht', male: 'männlich', female: 'weiblich' };

const CASES: { lang: string; instructions: string; want: Record<string, string> }[] = [
  { lang: 'fr', instructions: 'Prénom : Jeanne. Nom : Dupont. Je suis née le 4 avril 1990. Sexe : féminin. Ville : Lyon. Code postal 69003.', want: { 'p.first': 'Jeanne', 'p.last': 'Dupont', 'p.dob': '04/04/1990', 'p.sex': 'F', 'p.city': 'Lyon', 'p.zip': '69003' } },
  { lang: 'de', instructions: 'Vorname ist Hans, Nachname ist Müller. Ich bin am 7. März 1985 geboren. Geschlecht: männlich. Stadt: Berlin. Postleitzahl 10115.', want: { 'p.first': 'Hans', 'p.last': 'Müller', 'p.dob': '03/07/1985', 'p.sex': 'M', 'p.city': 'Berlin', 'p.zip': '10115' } },
  { lang: 'es', instructions: 'Mi nombre es María y mi apellido es García. Fecha de nacimiento 4 abril 1990. Sexo: mujer. Ciudad: Madrid. Código postal 28013.', want: { 'p.first': 'María', 'p.last': 'García', 'p.dob': '04/04/1990', 'p.sex': 'F', 'p.city': 'Madrid', 'p.zip': '28013' } },
  { lang: 'nl', instructions: 'Voornaam: Jan. Achternaam: Jansen. Geboortedatum 12 mei 1985. Geslacht: man. Woonplaats: Utrecht. Postcode 3511.', want: { 'p.first': 'Jan', 'p.last': 'Jansen', 'p.dob': '05/12/1985', 'p.sex': 'M', 'p.city': 'Utrecht', 'p.zip': '3511' } },
];

describe('edit: instructions in other languages over HTTP', () => {
  let s: TestServer;
  let englishId = '';
  let germanId = '';

  before(async () => {
    s = await startTestServer();
    englishId = await uploadDone(s, 'person.pdf', await personPdf(ENGLISH));
    germanId = await uploadDone(s, 'person-de.pdf', await personPdf(GERMAN));
  });
  after(async () => {
    await s?.close();
  });

  for (const c of CASES) {
    test(`${c.lang} instructions on an English form: each value in its field, verified`, async () => {
      const run = await s.json('/api/edit/run', { method: 'POST', json: { document_id: englishId, instructions: c.instructions, verify: true } });
      assert.equal(run.status, 200, JSON.stringify(run.body));
      const v = await readBack(run.body.output_file_url);
      for (const [field, want] of Object.entries(c.want)) assert.equal(v[field], want, `${field}: ${JSON.stringify(v)}`);
      assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
      assert.equal(run.body.filled_elements.length, Object.keys(c.want).length, 'nothing else written');
    });
  }

  test('English instructions on a form printed in German', async () => {
    const run = await s.json('/api/edit/run', { method: 'POST', json: { document_id: germanId, instructions: 'First name Anna, last name Weber, born 1 June 1979, female, city Salzburg, postcode 5020.', verify: true } });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const v = await readBack(run.body.output_file_url);
    assert.deepEqual({ first: v['p.first'], last: v['p.last'], city: v['p.city'], zip: v['p.zip'], sex: v['p.sex'] }, { first: 'Anna', last: 'Weber', city: 'Salzburg', zip: '5020', sex: 'F' });
    assert.match(String(v['p.dob']), /1979/);
    assert.equal(run.body.verification_result.pass, true, JSON.stringify(run.body.verification_result));
  });
});
