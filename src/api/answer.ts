import type * as z from 'zod/mini';
import type { Endpoint } from './endpoints.js';
import { quoted } from '../printable.js';
import { ApiError } from './errors.js';
import { SERVICE_LIMITS } from './limits.js';

type Answer = { readonly status: number; readonly contentType: string; readonly body: string };

const HTML_HINT = 'Check baseUrl (it must be the API address, not the web site); if it is right, this IP may be banned for a few minutes after too many calls: wait, then try again.';

const looksHtml = (answer: Answer): boolean => /html/i.test(answer.contentType) || /^\s*</.test(answer.body);

/** The JSON of an answer, or undefined when it is not JSON. An empty body is `{}` (delete answers so). */
export function jsonOf(answer: Answer): unknown {
  if (answer.body.trim() === '') return {};
  if (looksHtml(answer)) return undefined;
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return undefined;
  }
}

/** The answer was not JSON: an HTML ban or login page, a proxy, a wrong baseUrl. */
export function notJsonError(endpoint: Endpoint, answer: Answer): ApiError {
  const what = looksHtml(answer) ? 'HTML' : 'something that is not JSON';
  return new ApiError('API_BAD_RESPONSE', `The service answered ${what} instead of JSON on ${endpoint} (HTTP ${answer.status}).`, { endpoint, status: answer.status }, { hint: HTML_HINT });
}

/** Validates a success answer at the boundary, so that a wrong shape never crashes deep inside kbsync. */
export function readAnswer<T>(endpoint: Endpoint, answer: Answer, schema: z.ZodMiniType<T>): T {
  const json = jsonOf(answer);
  if (json === undefined) throw notJsonError(endpoint, answer);
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // The path may name the answer's own keys: the service's words, quoted like its messages.
  const where = issue ? quoted(`${issue.path.join('.') || '(top level)'}: ${issue.message}`, SERVICE_LIMITS.quotedChars) : 'unknown';
  throw new ApiError(
    'API_BAD_RESPONSE',
    `The service's answer to ${endpoint} does not have the expected shape (${where}).`,
    { endpoint, status: answer.status },
    { hint: 'Check that baseUrl points at the knowledge-base API (the /v1.0 and /v2.0 family); if it does, the service changed: please report this with the log.' },
  );
}
