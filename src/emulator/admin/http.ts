import type { IncomingMessage, ServerResponse } from 'node:http';
import { KbsyncError } from '../../errors.js';
import { paramError, ServiceError } from '../errors.js';
import { parseJsonObject, readBody, sendJson } from '../http.js';
import type { SeedRecord } from '../seed.js';
import type { EmulatorAdmin, RemoteCreateInput } from './admin.js';
import { checkAdminRequest } from './guard.js';

type Body = Readonly<Record<string, unknown>>;
type AdminRoute = { readonly method: string; readonly pattern: RegExp; run(admin: EmulatorAdmin, body: Body, id: string): unknown };

const text = (body: Body, field: string): string => {
  const value = body[field];
  if (typeof value !== 'string') throw paramError(`Body field '${field}' must be a string.`);
  return value;
};
const asUser = (body: Body): { asUser?: string } => (typeof body['asUser'] === 'string' ? { asUser: body['asUser'] } : {});
const num = (body: Body, field: string): number => {
  const value = body[field];
  if (typeof value !== 'number') throw paramError(`Body field '${field}' must be a number.`);
  return value;
};

/** The admin over HTTP, outside the service namespace; same operations as the in-process admin. */
function adminRoutes(seed: SeedRecord): readonly AdminRoute[] {
  return [
    { method: 'GET', pattern: /^\/_emulator\/seed$/, run: () => seed },
    { method: 'GET', pattern: /^\/_emulator\/calls$/, run: (a) => a.calls() },
    { method: 'POST', pattern: /^\/_emulator\/calls\/reset$/, run: (a) => (a.resetCalls(), {}) },
    { method: 'GET', pattern: /^\/_emulator\/faults$/, run: (a) => a.faults() },
    {
      method: 'PUT',
      pattern: /^\/_emulator\/faults$/,
      run: (a, body) => (a.setFaults(typeof body['spec'] === 'string' ? body['spec'] : (body as Record<string, unknown>)), a.faults()),
    },
    { method: 'PUT', pattern: /^\/_emulator\/rate-limit$/, run: (a, body) => (a.setRateLimit(num(body, 'perSecond')), {}) },
    { method: 'PUT', pattern: /^\/_emulator\/clock$/, run: (a, body) => (a.setClockOffset(num(body, 'offsetMs')), {}) },
    { method: 'GET', pattern: /^\/_emulator\/state$/, run: (a) => a.dump() },
    { method: 'POST', pattern: /^\/_emulator\/documents$/, run: (a, body) => a.createDocument({ ...body, name: text(body, 'name') } as RemoteCreateInput) },
    { method: 'POST', pattern: /^\/_emulator\/documents\/([^/]+)\/edit$/, run: (a, body, id) => (a.editDocument(id, text(body, 'markdown'), asUser(body)), {}) },
    { method: 'GET', pattern: /^\/_emulator\/documents\/([^/]+)\/blocks$/, run: (a, _body, id) => a.blocks(id) },
    { method: 'POST', pattern: /^\/_emulator\/nodes\/([^/]+)\/rename$/, run: (a, body, id) => (a.renameNode(id, text(body, 'name'), asUser(body)), {}) },
    { method: 'POST', pattern: /^\/_emulator\/nodes\/([^/]+)\/move$/, run: (a, body, id) => (a.moveNode(id, text(body, 'parentNodeId'), asUser(body)), {}) },
    { method: 'DELETE', pattern: /^\/_emulator\/nodes\/([^/]+)$/, run: (a, _body, id) => (a.deleteNode(id), {}) },
    {
      method: 'POST',
      pattern: /^\/_emulator\/workspaces$/,
      run: (a, body) => a.addWorkspace({ name: text(body, 'name'), ...(typeof body['description'] === 'string' ? { description: body['description'] } : {}) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/tokens$/,
      run: (a, body) => {
        const scopes = body['scopes'];
        if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) throw paramError("Body field 'scopes' must be an array of strings.");
        return { token: a.addToken(scopes) };
      },
    },
  ];
}

export async function handleAdmin(admin: EmulatorAdmin, seed: SeedRecord, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  try {
    checkAdminRequest(req);
    const method = req.method ?? 'GET';
    for (const route of adminRoutes(seed)) {
      const match = route.method === method ? route.pattern.exec(pathname) : null;
      if (!match) continue;
      const body = parseJsonObject(await readBody(req));
      return sendJson(res, 200, route.run(admin, body, decodeURIComponent(match[1] ?? '')));
    }
    sendJson(res, 404, { code: 'InvalidAction.NotFound', message: `No admin endpoint ${method} ${pathname}.` });
  } catch (error) {
    if (error instanceof ServiceError) return sendJson(res, error.status, { code: error.code, message: error.message });
    if (error instanceof KbsyncError) return sendJson(res, 400, { code: error.code, message: error.message });
    sendJson(res, 500, { code: 'InternalError', message: String(error) });
  }
}
