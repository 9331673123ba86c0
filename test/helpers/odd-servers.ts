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
