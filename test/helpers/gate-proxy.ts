import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request through the proxy, as its hooks see it. */
export type Passing = { readonly method: string; readonly path: string; readonly body: string };

/** An answer the proxy gives itself, the service never asked: a fault a test puts on one call. */
export type ProxyAnswer = { readonly status: number; readonly body: string };

export type GateHooks = {
  /**
   * Before the request goes on to the service: a test holds it here until another machine's call is answered, or
   * answers it itself (the request then never reaches the service).
   */
  readonly before?: (request: Passing) => Promise<ProxyAnswer | void> | ProxyAnswer | void;
  /** Once the service has answered, before the answer goes back. */
  readonly after?: (request: Passing, status: number, answer: string) => void;
};

/**
 * An HTTP proxy in front of the emulator for one workstation (its config's `service.baseUrl`), so a test can
 * put two workstations' calls in one order: a race that one event loop or two processes meet only now and
 * then (two writers' calls on one document) is then met every run.
 */
export async function gateProxy(target: string, hooks: GateHooks): Promise<{ readonly baseUrl: string; close(): Promise<void> }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const passing: Passing = { method: req.method ?? 'GET', path: req.url ?? '/', body: body.toString() };
      void (async () => {
        const answered = await hooks.before?.(passing);
        if (answered) {
          res.writeHead(answered.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answered.body)) });
          res.end(answered.body);
          return;
        }
        const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
          const back: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => back.push(chunk));
          answer.on('end', () => {
            const text = Buffer.concat(back);
            hooks.after?.(passing, answer.statusCode ?? 0, text.toString());
            const headers = { ...answer.headers, 'content-length': String(text.length) };
            delete headers['transfer-encoding'];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(text);
          });
        });
        upstream.on('error', () => res.destroy());
        upstream.end(body);
      })();
    });
  });
  // As the emulator does (src/emulator/server.ts): Node's 5 s default closes an idle connection just as a loaded
  // client reuses it, and the call fails with ECONNRESET, outside any fault a test or a soak put on it (soak 739).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A gate at a machine's first read of one document's blocks, once armed with that document (its key is known only once
 * the test has made it) and the step to take there: the moment between a run's listing and its read of the page.
 */
export function atFirstReadOf(): { readonly hooks: GateHooks; arm(docKey: string, step: () => void): void; readonly fired: boolean } {
  let page = '';
  let fired = false;
  let during = (): void => undefined;
  return {
    hooks: {
      before: (request) => {
        if (fired || page === '' || !request.path.includes(`/documents/${page}/blocks`)) return;
        fired = true;
        during();
      },
    },
    arm(docKey, step) {
      page = docKey;
      during = step;
    },
    get fired() {
      return fired;
    },
  };
}

/**
 * Gate hooks that run one armed step (another machine's run, say) when the first request `matching` comes, and
 * hold that request until it ends: `arm` sets the step, `fired` says whether it ran.
 */
export function onceAt(matching: (request: Passing) => boolean): { readonly hooks: GateHooks; arm(step: () => Promise<unknown>): void; readonly fired: boolean } {
  let armed: (() => Promise<unknown>) | undefined;
  let fired = false;
  return {
    hooks: {
      before: async (request) => {
        if (!armed || !matching(request)) return;
        const step = armed;
        armed = undefined;
        fired = true;
        await step();
      },
    },
    arm(step) {
      armed = step;
    },
    get fired() {
      return fired;
    },
  };
}
