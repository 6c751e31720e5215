import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pluginContext } from '@quire/core';
import type { IntegrationPlugin } from '@quire/core';
import plugin from '@quire/plugin-integration-email';
import { startSmtpStub } from '../../../test/helpers/smtp-stub.js';
import type { SmtpStub } from '../../../test/helpers/smtp-stub.js';

let smtp: SmtpStub;
before(async () => {
  smtp = await startSmtpStub();
});
after(() => smtp.close());

const make = (options = {}) => plugin.create(pluginContext(plugin, { options })) as IntegrationPlugin;

test('sends the message over SMTP to the target recipients, from the configured sender', async () => {
  const p = make({ host: '127.0.0.1', port: smtp.port, from: 'quire@books.example' });
  const r = await p.send({ target: { to: ['ann@books.example', 'bo@books.example'] }, message: { body: 'Total 12', subject: 'Invoice INV-1', workflow: { id: 'w', name: 'Invoices' }, execution: { id: 'x' } } });
  const mail = smtp.received.at(-1)!;
  assert.deepEqual(mail.to, ['ann@books.example', 'bo@books.example']);
  assert.match(mail.data, /^From: quire@books\.example/m);
  assert.match(mail.data, /^Subject: Invoice INV-1/m);
  assert.match(mail.data, /Total 12/);
  assert.deepEqual(r.sent, { to: ['ann@books.example', 'bo@books.example'], subject: 'Invoice INV-1', text: 'Total 12' });
  assert.deepEqual(r.result.accepted, ['ann@books.example', 'bo@books.example']);
});

test('the recipients are what the host checks; the subject template is the default one', () => {
  const p = make();
  assert.deepEqual(p.recipients!({ to: 'ann@books.example' }), ['ann@books.example']);
  assert.equal(p.subject, 'Workflow {{workflow.name}}');
  assert.ok(!p.target!.safeParse({ to: 'not-an-address' }).success);
});

test('without an SMTP host a send fails saying what to set, with what it would have sent', async () => {
  await assert.rejects(make().send({ target: { to: 'ann@books.example' }, message: { body: 'x', subject: 's' } }), (e: any) => e.code === 'VALIDATION_ERROR' && /QUIRE_SMTP_HOST/.test(e.message) && e.sent.subject === 's');
  assert.throws(() => make({ port: 0 }), /option "port"/);
});
