import http from 'node:http';

/** One request the receiver got: its path, headers and raw body (as sent, for signature checks). */
export interface Hit {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local HTTP receiver of webhook deliveries and integration calls. */
export interface Receiver {
  /** http://127.0.0.1:<port> */
  base: string;
  /** every request, in order of arrival */
  received: Hit[];
  /** the requests to one path */
  hits(path: string): Hit[];
  /** what a path answers, in turn: the last status repeats (default 200) */
  answer(path: string, statuses: number[]): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Hit[] = [];
  const answers = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, method: req.method ?? 'GET', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const list = answers.get(path) ?? [200];
      res.writeHead(list.length > 1 ? list.shift()! : list[0]!, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    hits: (path) => received.filter((r) => r.path === path),
    answer: (path, statuses) => void answers.set(path, [...statuses]),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
