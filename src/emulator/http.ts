import type { IncomingMessage, ServerResponse } from 'node:http';
import { paramError, ServiceError } from './errors.js';

/** Far above the 50,000-character content limit, so an over-long overwrite still gets its paramError. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ServiceError(413, 'paramError', `Request body is over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON object body ({} when empty); anything else is a paramError. */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw paramError('The request body is not valid JSON; send a JSON object.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw paramError('The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    // Defence in depth: even if escaping failed somewhere, no script runs and nothing loads.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src http: https: data:",
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}

/** Sleeps, but wakes early (rejecting) when the emulator closes, so close() never waits for injected latency. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('emulator closed'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('emulator closed'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
