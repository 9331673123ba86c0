import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KbClient, type KbClientOptions } from '../../../src/api/client.js';
import { asUnionId } from '../../../src/model/ids.js';
import { RequestQueue } from '../../../src/queue/request-queue.js';
import { FakeClock } from '../queue/fake-clock.js';

export type SeenRequest = {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: unknown;
};

export type Reply =
  | { readonly status?: number; readonly json?: unknown; readonly text?: string; readonly headers?: Record<string, string>; readonly delayMs?: number }
  | 'reset';

export type FakeService = { readonly url: string; readonly requests: SeenRequest[]; close(): Promise<void> };

/** A node:http server on 127.0.0.1:0 that answers exactly what a test scripts, and records every request. */
export async function startFakeService(handler: (request: SeenRequest, index: number) => Reply | Promise<Reply>): Promise<FakeService> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const seen: SeenRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body: raw ? (JSON.parse(raw) as unknown) : undefined };
      requests.push(seen);
      void Promise.resolve(handler(seen, requests.length - 1)).then(async (reply) => {
        if (reply === 'reset') return void req.socket.destroy();
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const isText = reply.text !== undefined;
        res.writeHead(reply.status ?? 200, { 'content-type': isText ? 'text/html' : 'application/json', ...reply.headers });
        res.end(isText ? reply.text : JSON.stringify(reply.json ?? {}));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const TOKEN = 'tok-SECRET-0123456789abcdef';
export const OPERATOR = asUnionId('union-op-1');

/** A client of `service` on a fake clock: throttle pauses and backoff cost no real time. */
export function clientFor(service: FakeService, options: Partial<KbClientOptions> = {}): KbClient {
  const queue = new RequestQueue({ clock: new FakeClock() });
  return new KbClient({ baseUrl: service.url, token: { get: async () => TOKEN }, operatorId: OPERATOR, queue, ...options });
}

export const node = (id: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  nodeId: id,
  name: `${id}.adoc`,
  type: 'FILE',
  category: 'RICHDOC',
  extension: 'adoc',
  workspaceId: 'ws1',
  url: `http://kb/i/nodes/${id}`,
  createTime: '2024-01-01T10:00Z',
  modifiedTime: '2024-01-02T10:00Z',
  ...extra,
});
