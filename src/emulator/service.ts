import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, requireScopes } from './auth.js';
import { actionNotFound, internalError, ServiceError, throttled } from './errors.js';
import { parseJsonObject, readBody, sendJson, sleep } from './http.js';
import { operatorOf } from './operator.js';
import { matchRoute, type RouteMatch } from './routes/index.js';
import type { Runtime } from './runtime.js';

const qpsLimited = (endpoint: string): ServiceError =>
  new ServiceError(403, 'Forbidden.AccessDenied.QpsLimitForAppkeyAndApi', `Injected fault: the app's QPS limit for ${endpoint} was hit; wait 1 second and retry.`);

function sendError(res: ServerResponse, error: ServiceError, requestId: string): void {
  sendJson(res, error.status, error.body(requestId), error.status === 429 ? { 'retry-after': '1' } : {});
}

/** Auth, scopes, body, operatorId, then the endpoint itself: the order a request passes the gateway. */
async function execute(rt: Runtime, req: IncomingMessage, url: URL, match: RouteMatch): Promise<unknown> {
  const raw = match.route.method === 'POST' || match.route.method === 'PUT' ? await readBody(req) : '';
  const scopes = authenticate(rt.store, rt.tokenHeader, req.headers[rt.tokenHeader.toLowerCase()]);
  requireScopes(scopes, match.route.scopes);
  const body = parseJsonObject(raw);
  const operatorId = operatorOf(rt.store, match.route.operatorIn, url.searchParams, body);
  return match.route.handle({
    ops: rt.ops,
    store: rt.store,
    faults: rt.faults,
    counter: rt.counter,
    params: match.params,
    query: url.searchParams,
    body,
    operatorId,
    baseUrl: rt.baseUrl,
  });
}

/** One service request: count, rate-limit, inject faults, execute, answer (or drop). */
export async function handleService(rt: Runtime, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const requestId = rt.nextRequestId();
  const method = req.method ?? 'GET';
  const match = matchRoute(method, url.pathname);
  if (!match) {
    rt.counter.notFound();
    return sendError(res, actionNotFound(method, url.pathname), requestId);
  }
  const name = match.route.name;
  rt.counter.call(name, match.params['docKey']);
  if (!rt.limiter.take(name)) {
    rt.counter.throttled(name);
    return sendError(res, throttled(name), requestId);
  }
  const fault = rt.faults.decide(name);
  if (fault.latencyMs > 0) {
    rt.counter.fault(name, 'latency');
    try {
      await sleep(fault.latencyMs, rt.closing);
    } catch {
      req.socket.destroy();
      return;
    }
  }
  if (fault.action !== null && fault.action !== 'drop') rt.counter.fault(name, fault.action);
  switch (fault.action) {
    case 'reset':
      req.socket.destroy();
      return;
    case 'throttle429':
      return sendError(res, throttled(name), requestId);
    case 'qps403':
      return sendError(res, qpsLimited(name), requestId);
    case 'error5xx':
      return sendError(res, internalError(`Injected fault: ${name} failed with a server error; nothing was done. Retry later.`), requestId);
    default:
      break;
  }
  let status = 200;
  let answer: unknown;
  try {
    answer = await execute(rt, req, url, match);
  } catch (error) {
    const serviceError = error instanceof ServiceError ? error : internalError(`Emulator failure in ${name}: ${String(error)}`);
    status = serviceError.status;
    answer = serviceError.body(requestId);
  }
  if (fault.action === 'drop') {
    // The work is done (or refused) but the client never hears: what a lost answer looks like.
    rt.counter.fault(name, 'drop');
    req.socket.destroy();
    return;
  }
  sendJson(res, status, answer, status === 429 ? { 'retry-after': '1' } : {});
}
