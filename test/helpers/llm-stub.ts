import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a stand-in model answers: the assistant's content, or an error status with its message. */
export type StubAnswer = string | { status: number; message: string };

export interface StubLlm {
  /** the base URL to give as QUIRE_LLM_BASE_URL (…/v1) */
  url: string;
  /** every request body received, in order */
  requests: any[];
  close(): Promise<void>;
}

/**
 * A stand-in OpenAI-compatible chat-completions server on a free local port, for tests of the LLM paths:
 * `answer` gets the content of the request's last message and the whole body, and returns what the model
 * says (sent in the chat.completion envelope) or an error answer.
 */
export async function startStubLlm(answer: (user: string, body: any) => StubAnswer): Promise<StubLlm> {
  const requests: any[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}');
      requests.push(body);
      const a = answer(String(body.messages?.at(-1)?.content ?? ''), body);
      res.setHeader('content-type', 'application/json');
      if (typeof a !== 'string') return res.writeHead(a.status).end(JSON.stringify({ error: { message: a.message } }));
      res.writeHead(200).end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: body.model ?? 'stub', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: a } }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
