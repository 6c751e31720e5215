/**
 * The Slack integration (kind `integration`, name `slack`; the API's `messaging` integration type): posts a
 * workflow step's message to a Slack-style incoming webhook as {text, channel}; a template that renders a JSON
 * object is sent as it is (blocks, attachments). Sent with the host's outbound HTTP (ctx.http).
 */
import { definePlugin, errors, sendFailed, z } from '@quire/core';
import type { HttpClient, IntegrationPlugin } from '@quire/core';

export const SLACK_OPTIONS = z.strictObject({
  /** the bot name shown, when the message does not set one */
  username: z.string().min(1).max(80).optional(),
  /** the icon shown (":robot_face:"), when the message does not set one */
  iconEmoji: z.string().regex(/^:[a-z0-9_+-]+:$/, 'an emoji code like :robot_face:').optional(),
  userAgent: z.string().min(1).max(200).default('Quire-Workflows/1.0'),
  /** characters of the payload kept in the step's log */
  logChars: z.number().int().min(0).max(1_000_000).default(20_000),
});
export type SlackOptions = z.infer<typeof SLACK_OPTIONS>;

/** Where a step posts: the incoming webhook URL (secret) and an optional channel. */
export const SLACK_TARGET = z.strictObject({ webhook_url: z.string().url().max(2000), channel: z.string().max(200).optional() });

const plainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The message posted: the rendered JSON object, else {text}; the target's channel and the options' name and icon unless set. */
export function slackMessage(body: string, channel: string | undefined, options: Pick<SlackOptions, 'username' | 'iconEmoji'>): Record<string, unknown> {
  let message: Record<string, unknown>;
  try {
    const parsed = JSON.parse(body) as unknown;
    message = plainObject(parsed) ? parsed : { text: body };
  } catch {
    message = { text: body };
  }
  if (channel && message.channel === undefined) message.channel = channel;
  if (options.username && message.username === undefined) message.username = options.username;
  if (options.iconEmoji && message.icon_emoji === undefined) message.icon_emoji = options.iconEmoji;
  return message;
}

export function createSlackIntegration(http: HttpClient, options: SlackOptions): IntegrationPlugin {
  return {
    target: SLACK_TARGET,
    secretFields: ['webhook_url'],
    async send({ target, message, signal }) {
      const t = SLACK_TARGET.parse(target);
      const body = JSON.stringify(slackMessage(message.body, t.channel, options));
      const sent = { method: 'POST', payload: body.length > options.logChars ? `${body.slice(0, options.logChars)}…` : body };
      const headers: Record<string, string> = { 'user-agent': options.userAgent, 'content-type': 'application/json' };
      if (message.workflow) headers['x-svc-workflow-id'] = message.workflow.id;
      if (message.execution) headers['x-svc-execution-id'] = message.execution.id;
      try {
        const res = await http(t.webhook_url, { method: 'POST', headers, body, signal });
        const host = new URL(t.webhook_url).host;
        if (res.status >= 300 && res.status < 400) throw errors.upstream(`${host} answered ${res.status} (a redirect): redirects are not followed`);
        if (res.status < 200 || res.status >= 300) throw errors.upstream(`${host} answered HTTP ${res.status}`);
        return { sent, result: { status: res.status, response: res.body.slice(0, 2000) } };
      } catch (e) {
        throw sendFailed(e, sent);
      }
    },
  };
}

export default definePlugin({
  kind: 'integration',
  name: 'slack',
  core: '^1',
  description: 'Posts a workflow step to a Slack-style incoming webhook.',
  options: SLACK_OPTIONS,
  create: (ctx) => createSlackIntegration(ctx.http, ctx.options),
});
