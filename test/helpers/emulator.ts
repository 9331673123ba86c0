import { startEmulator, type EmulatorOptions, type EndpointName, type RunningEmulator } from '../../src/emulator/index.js';

export type { RunningEmulator, EmulatorOptions } from '../../src/emulator/index.js';

/** Runs `fn` against a fresh emulator on a free port and always closes it, whatever `fn` does. */
export async function withEmulator<T>(fn: (em: RunningEmulator) => Promise<T>, options?: EmulatorOptions): Promise<T> {
  const em = await startEmulator(options);
  try {
    return await fn(em);
  } finally {
    await em.close();
  }
}

export type CallOptions = {
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly body?: unknown;
  /** Default: the all-scopes token; `null` sends no token header at all. */
  readonly token?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
};

export type CallResult = {
  readonly status: number;
  /** Parsed JSON when the answer is JSON, else the raw text. */
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary answer shapes
  readonly headers: Headers;
};

/** One raw HTTP call with node's fetch: emulator tests stay independent of kbsync's own client. */
export async function call(em: RunningEmulator, method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const url = new URL(path, em.url);
  for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? em.seed.token : options.token;
  if (token !== null) headers[em.seed.tokenHeader] = token;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('application/json');
  return { status: response.status, body: isJson ? (JSON.parse(text) as unknown) : text, headers: response.headers };
}

/** Creates a document (or folder) through the service and returns the creation answer. */
export async function createDoc(
  em: RunningEmulator,
  name: string,
  extra: { readonly docType?: string; readonly parentNodeId?: string; readonly workspaceId?: string } = {},
): Promise<{ dentryUuid: string; docKey: string; nodeId: string; workspaceId: string; url: string }> {
  const { workspaceId = em.seed.workspaceId, docType = 'DOC', parentNodeId } = extra;
  const result = await call(em, 'POST', `/v1.0/doc/workspaces/${workspaceId}/docs`, {
    body: { operatorId: em.seed.operatorId, docType, name, ...(parentNodeId === undefined ? {} : { parentNodeId }) },
  });
  if (result.status !== 200) throw new Error(`create ${name} failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

/** Overwrites a body with Markdown through the service (operatorId in query and body, as the contract says). */
export async function overwrite(em: RunningEmulator, docKey: string, content: string): Promise<CallResult> {
  return call(em, 'POST', `/v1.0/doc/suites/documents/${docKey}/overwriteContent`, {
    query: { operatorId: em.seed.operatorId },
    body: { operatorId: em.seed.operatorId, content, contentType: 'markdown' },
  });
}

export async function readBlocks(em: RunningEmulator, docKey: string, query: Record<string, string | number> = {}): Promise<CallResult> {
  return call(em, 'GET', `/v1.0/doc/suites/documents/${docKey}/blocks`, { query: { operatorId: em.seed.operatorId, ...query } });
}

/**
 * Resolves once the service has taken in one more call of `endpoint` than `before`: it counts a call as the
 * request comes in, before it reads its body or waits out an injected latency, so a test can act while it is in there.
 */
export async function callArrived(em: RunningEmulator, endpoint: EndpointName, before: number): Promise<void> {
  while (em.admin.calls().byEndpoint[endpoint].calls <= before) await new Promise((resolve) => setTimeout(resolve, 2));
}
