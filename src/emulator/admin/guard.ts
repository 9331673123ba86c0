import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { ServiceError } from '../errors.js';

/**
 * The admin routes change anything in the emulator without a token, so a web page the person happens to
 * open must not reach them:
 * - a request whose Host is a name other than `localhost` is refused: DNS rebinding (a page whose own name
 *   is made to resolve to 127.0.0.1) can only come through a name, never through an address;
 * - a request that is not a GET must say its body is JSON: a page can send a form or plain text anywhere
 *   without asking, but `content-type: application/json` makes the browser ask first (a CORS preflight),
 *   and the emulator never says yes.
 * Scripts and tests (curl, fetch from Node) send both without effort.
 */
export function checkAdminRequest(req: IncomingMessage): void {
  const host = hostnameOf(req.headers.host);
  if (host !== undefined && host !== 'localhost' && isIP(host) === 0) {
    throw new ServiceError(403, 'Forbidden.AdminHost', `The admin routes answer only requests addressed to the emulator by IP address or as localhost, not as '${host}' (a web page could reach them through a name).`);
  }
  if ((req.method ?? 'GET') !== 'GET' && !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    throw new ServiceError(415, 'paramError', 'An admin request other than GET must send its body as JSON, with the header content-type: application/json (an empty body too).');
  }
}

/** The Host header's name without its port (`[::1]:8787` → `::1`); undefined when there is none. */
function hostnameOf(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return bracketed[1];
  return header.replace(/:\d+$/, '').toLowerCase();
}
