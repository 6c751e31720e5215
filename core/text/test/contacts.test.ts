import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contactAsked, contactValues, ibanValid } from '@quire/text';

const values = (text: string, form: Parameters<typeof contactValues>[1]) => contactValues(text, form).map((v) => v.value);

test('contactValues: e-mail and web addresses, telephone numbers by their label or their shape, IBANs that check, BICs after their label', () => {
  assert.deepEqual(values('Write to kiosk@skerra-ferries.eu, or see www.skerra-ferries.eu/timetable.', 'email'), ['kiosk@skerra-ferries.eu']);
  assert.deepEqual(values('Write to kiosk@skerra-ferries.eu, or see www.skerra-ferries.eu/timetable.', 'web'), ['www.skerra-ferries.eu/timetable']);
  assert.deepEqual(values('For the rules go to canada.ca/payments. E.g. pay online.', 'web'), ['canada.ca/payments']);
  assert.deepEqual(values('Tel. +49 6051 916 44 10 · Fax 06051 91644 29', 'phone'), ['+49 6051 916 44 10', '06051 91644 29']);
  assert.deepEqual(contactValues('Tel. +49 6051 916 44 10 · Fax 06051 91644 29', 'phone').map((v) => !!v.fax), [false, true]);
  assert.deepEqual(values('Call (702) 939-3254 or 1-866-330-3304.', 'phone'), ['(702) 939-3254', '1-866-330-3304']);
  // figures that are no telephone numbers: an amount, a date, a count
  assert.deepEqual(values('Total 1,250,000.00 on 2020.03.30 for 9,661 cases', 'phone'), []);
  assert.deepEqual(values('IBAN: AT92 2040 4000 4096 8679, BIC: SBGSAT2SXXX', 'iban'), ['AT92 2040 4000 4096 8679']);
  assert.deepEqual(values('IBAN: AT92 2040 4000 4096 8679, BIC: SBGSAT2SXXX', 'bic'), ['SBGSAT2SXXX']);
  // a check digit changed: no IBAN; capitals without their label: no BIC
  assert.deepEqual(values('IBAN: AT93 2040 4000 4096 8679', 'iban'), []);
  assert.deepEqual(values('Our PORTSIDE team', 'bic'), []);
  assert.ok(ibanValid('DE30507500940000048567'));
  assert.ok(!ibanValid('DE31507500940000048567'));
});

test('contactAsked: the form a what or which question asks for', () => {
  assert.equal(contactAsked('What e-mail address can the ferry office be reached at?'), 'email');
  assert.equal(contactAsked('Which web page lists the accepted ways to pay?'), 'web');
  assert.equal(contactAsked("What is Galaxy Gaming's phone number?"), 'phone');
  assert.equal(contactAsked('What is the IBAN of the club’s account?'), 'iban');
  assert.equal(contactAsked('What is the BIC of the club’s bank?'), 'bic');
  assert.equal(contactAsked('How long was the telephone interview?'), null);
  assert.equal(contactAsked('Into how many groups are the pollutants divided on its website?'), null);
});
