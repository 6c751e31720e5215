/**
 * The email integration (kind `integration`, name `email`; the API's `email` integration type): sends a
 * workflow step's message over SMTP with nodemailer. The SMTP server is the plugin's options (QUIRE_SMTP_HOST,
 * QUIRE_SMTP_PORT, QUIRE_SMTP_USER, QUIRE_SMTP_PASSWORD, QUIRE_SMTP_FROM); without a host a send fails saying
 * what to set. The host allows only its recipients (`recipients`: the owner, an organization's members).
 */
import { definePlugin, errors, sendFailed, z } from '@quire/core';
import type { IntegrationPlugin } from '@quire/core';

export const EMAIL_OPTIONS = z.strictObject({
  host: z.string().min(1).max(255).optional(),
  port: z.number().int().min(1).max(65535).default(587),
  user: z.string().min(1).max(255).optional(),
  password: z.string().max(1000).optional(),
  from: z.string().min(3).max(320).default('quire@localhost'),
});
export type EmailOptions = z.infer<typeof EMAIL_OPTIONS>;

/** Where a step sends: the recipients, a subject template and a default body template. */
export const EMAIL_TARGET = z.strictObject({
  to: z.union([z.string().email(), z.array(z.string().email()).min(1).max(50)]),
  subject: z.string().max(1000).default('Workflow {{workflow.name}}'),
  template: z.string().max(100_000).optional(),
});

export const NOT_CONFIGURED = 'Email is not configured on this server: set QUIRE_SMTP_HOST (and QUIRE_SMTP_PORT, QUIRE_SMTP_USER, QUIRE_SMTP_PASSWORD, QUIRE_SMTP_FROM) to send workflow emails';

/** Sends one email over the configured SMTP server; without a host it fails with what to set. */
export async function sendMail(cfg: EmailOptions, mail: { to: string | string[]; subject: string; text: string }): Promise<{ message_id: string; accepted: string[] }> {
  if (!cfg.host) throw errors.validation(NOT_CONFIGURED);
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: cfg.host,
    port: cfg.port,
    secure: cfg.port === 465,
    ...(cfg.user ? { auth: { user: cfg.user, pass: cfg.password ?? '' } } : {}),
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  try {
    const info = await transport.sendMail({ from: cfg.from, to: mail.to, subject: mail.subject, text: mail.text });
    return { message_id: String(info.messageId ?? ''), accepted: (info.accepted ?? []).map(String) };
  } catch (e) {
    throw errors.upstream(`Sending the email failed: ${(e as Error).message}`);
  } finally {
    transport.close();
  }
}

export function createEmailIntegration(options: EmailOptions): IntegrationPlugin {
  const addresses = (to: unknown) => (Array.isArray(to) ? to : [to]).map(String);
  return {
    target: EMAIL_TARGET,
    secretFields: [],
    subject: 'Workflow {{workflow.name}}',
    recipients: (target) => addresses(target.to),
    async send({ target, message }) {
      const t = EMAIL_TARGET.parse(target);
      const subject = message.subject ?? `Workflow ${message.workflow?.name ?? ''}`.trim();
      const sent = { to: t.to, subject, text: message.body };
      try {
        return { sent, result: await sendMail(options, { to: t.to, subject, text: message.body }) };
      } catch (e) {
        throw sendFailed(e, sent);
      }
    },
  };
}

export default definePlugin({
  kind: 'integration',
  name: 'email',
  core: '^1',
  description: 'Sends a workflow step by email over SMTP (nodemailer).',
  options: EMAIL_OPTIONS,
  create: (ctx) => createEmailIntegration(ctx.options),
});
