import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A throwaway HTTP server on 127.0.0.1 that answers every request with `answer`. */
export type OddServer = { readonly url: string; readonly requests: number; close(): Promise<void> };

export async function startOddServer(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<OddServer> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What a banned IP gets from the real service's gateway: a 200 with an HTML page, not JSON. */
export const htmlBanPage = (_req: IncomingMessage, res: ServerResponse): void => {
  const html = '<!DOCTYPE html><html><head><title>Access denied</title></head><body><h1>Your IP is temporarily banned</h1></body></html>';
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(html);
};

/** A hostile or buggy service that repeats the request's headers (the token among them) in its error message. */
export const echoHeaders = (req: IncomingMessage, res: ServerResponse): void => {
  const body = JSON.stringify({ code: 'paramError', message: `bad request, headers were ${JSON.stringify(req.headers)}`, requestid: 'echo-1' });
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(body);
};

/** A port on 127.0.0.1 where nothing listens (taken and released at once). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A request as the hostile proxy saw it. */
export type ProxiedRequest = { readonly method: string; readonly path: string; readonly query: URLSearchParams; readonly body: string };

/** What the proxy answers in the service's place: an answer, `hang` (never answer), or undefined to let the service answer. */
export type ProxyAnswer = { readonly status: number; readonly headers?: Record<string, string>; readonly body: string } | 'hang' | undefined;

export type HostileProxy = OddServer & { readonly seen: readonly ProxiedRequest[] };

/**
 * A service gone bad in one place: every request is passed to the real one (the emulator at `target`)
 * except those `intercept` answers itself. So a whole sync runs against a service that, say, lists a
 * folder inside itself or throttles one endpoint for an hour.
 */
export async function startHostileProxy(target: string, intercept: (request: ProxiedRequest) => ProxyAnswer): Promise<HostileProxy> {
  const seen: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  async function answer(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid');
    const request: ProxiedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body };
    seen.push(request);
    const own = intercept(request);
    if (own === 'hang') return;
    if (own) {
      res.writeHead(own.status, { 'content-type': 'application/json', ...own.headers });
      res.end(own.body);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
    try {
      const upstream = await fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers, ...(body === '' ? {} : { body }) });
      const text = await upstream.text();
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json', date: upstream.headers.get('date') ?? new Date().toUTCString() });
      res.end(text);
    } catch {
      req.socket.destroy();
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    get requests() {
      return seen.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
