import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatorAdmin } from './admin/admin.js';
import { handleAdmin } from './admin/http.js';
import type { Clock } from './clock.js';
import { internalError } from './errors.js';
import { handleView } from './html-view.js';
import { sendJson } from './http.js';
import type { Runtime } from './runtime.js';
import type { SeedRecord } from './seed.js';
import { handleService } from './service.js';

/** Three namespaces: `/_emulator/...` admin, `/i/...` web view, everything else the service. */
export function createEmulatorServer(rt: Runtime, admin: EmulatorAdmin, seed: SeedRecord): Server {
  const server = createServer({ ServerResponse: datedBy(rt.clock) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const work =
      url.pathname === '/_emulator' || url.pathname.startsWith('/_emulator/')
        ? handleAdmin(admin, seed, req, res, url.pathname)
        : req.method === 'GET' && url.pathname.startsWith('/i/')
          ? Promise.resolve(handleView(rt, res, url.pathname))
          : handleService(rt, req, res, url);
    work.catch((error: unknown) => {
      if (rt.closing.aborted) return;
      sendJson(res, 500, internalError(`Emulator failure: ${String(error)}`).body(rt.nextRequestId()));
    });
  });
  // Node's 5 s default closes an idle keep-alive connection just as a busy client may reuse it, and a create
  // sent on it then fails with ECONNRESET, its outcome unknown. Hosted services keep idle connections for a
  // minute or more (load balancers' usual 60 s); so does the emulator, so a loaded machine sees no such race.
  server.keepAliveTimeout = 65_000;
  return server;
}

/**
 * Answers dated by the service's own clock, skew included (clients compare modifiedTime with the Date header, never
 * with their own clock), as each answer is written, as a real server dates its answers. Dated as the request came
 * in, a write whose body was still on its way when the clock stepped to the next minute was stamped with that
 * minute and answered with the one before: its writer recorded the earlier minute, and took its own write's time
 * for someone's edit where reads cannot see (convergence soak 761: HIDDEN_EDIT, held for good).
 */
function datedBy(clock: Clock): typeof ServerResponse<IncomingMessage> {
  return class DatedResponse extends ServerResponse {
    // Every answer passes here: Node's implicit headers (a bare `end()`) call writeHead too.
    override writeHead(statusCode: number, ...rest: unknown[]): this {
      this.setHeader('date', new Date(clock.now()).toUTCString());
      return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this).call(this, statusCode, ...rest);
    }
  };
}

export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
