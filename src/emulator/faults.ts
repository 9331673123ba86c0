import { InputError } from '../errors.js';
import { ENDPOINTS, isEndpointName, type EndpointName } from './endpoints.js';
import { seededRandom } from './random.js';

/** Faults to inject, each share between 0 and 1; parsed from `latency=2000,5xx=0.1,only=createDocument|listNodes`. */
export type FaultSpec = {
  /** Milliseconds added before every answer. */
  readonly latency?: number;
  /** Share of 500 answers (code InternalError); nothing is done. */
  readonly error5xx?: number;
  /** Share of connection resets before any work. */
  readonly reset?: number;
  /** Share of 429 answers (a throttling storm), no code. */
  readonly throttle429?: number;
  /** Share of 403 Forbidden.AccessDenied.QpsLimitForAppkeyAndApi answers (the real service's other throttle). */
  readonly qps403?: number;
  /** Share of requests that are done and then have their connection destroyed: the client never hears. */
  readonly drop?: number;
  /** listNodes answers 500 for page N (1-based) and every later page. */
  readonly listFailPage?: number;
  /** Restrict faults to these endpoints (all when absent). */
  readonly only?: readonly EndpointName[];
  /** Seed of the fault PRNG; defaults to the emulator's seed. */
  readonly seed?: number;
};

export type FaultAction = 'reset' | 'throttle429' | 'qps403' | 'error5xx' | 'drop';
type FaultDecision = { readonly latencyMs: number; readonly action: FaultAction | null };

const SHARE_KEYS = ['error5xx', 'reset', 'throttle429', 'qps403', 'drop'] as const;
/** Spellings accepted in a spec string (and JSON) → the FaultSpec key. */
const ALIASES: Readonly<Record<string, keyof FaultSpec>> = {
  latency: 'latency',
  '5xx': 'error5xx',
  error5xx: 'error5xx',
  reset: 'reset',
  '429': 'throttle429',
  throttle429: 'throttle429',
  qps403: 'qps403',
  drop: 'drop',
  listFailPage: 'listFailPage',
  only: 'only',
  seed: 'seed',
};

const badFaults = (message: string): InputError =>
  new InputError('EMULATOR_BAD_FAULTS', `Invalid fault spec: ${message}`, {
    hint: `Use comma-separated key=value pairs with keys latency, 5xx, reset, 429, qps403, drop, listFailPage, only, seed; e.g. 'latency=200,5xx=0.1,only=createDocument|listNodes'.`,
  });

/** Accepts a spec string, a FaultSpec, or JSON with the string's key spellings; throws naming the bad key. */
export function parseFaultSpec(input: FaultSpec | string | Record<string, unknown>): FaultSpec {
  const entries: [string, unknown][] =
    typeof input === 'string'
      ? input
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== '')
          .map((part) => {
            const eq = part.indexOf('=');
            if (eq < 0) throw badFaults(`'${part}' has no '=value'.`);
            return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
          })
      : Object.entries(input);
  const spec: Record<string, unknown> = {};
  for (const [rawKey, value] of entries) {
    const key = ALIASES[rawKey];
    if (!key) throw badFaults(`unknown key '${rawKey}'.`);
    spec[key] = parseValue(key, rawKey, value);
  }
  return spec as FaultSpec;
}

function parseValue(key: keyof FaultSpec, rawKey: string, value: unknown): unknown {
  if (key === 'only') {
    const names = Array.isArray(value) ? value.map(String) : String(value).split('|').map((n) => n.trim()).filter(Boolean);
    const bad = names.find((name) => !isEndpointName(name));
    if (bad !== undefined || names.length === 0) throw badFaults(`'${rawKey}' names unknown endpoint '${bad ?? ''}'; known: ${ENDPOINTS.join(', ')}.`);
    return names;
  }
  const n = typeof value === 'number' ? value : Number(String(value));
  if (!Number.isFinite(n)) throw badFaults(`'${rawKey}' must be a number, got '${String(value)}'.`);
  if ((SHARE_KEYS as readonly string[]).includes(key) && (n < 0 || n > 1)) throw badFaults(`'${rawKey}' is a share between 0 and 1, got ${n}.`);
  if (key === 'latency' && n < 0) throw badFaults(`'${rawKey}' must be >= 0 milliseconds, got ${n}.`);
  if (key === 'listFailPage' && (!Number.isInteger(n) || n < 1)) throw badFaults(`'${rawKey}' must be a page number >= 1, got ${n}.`);
  if (key === 'seed' && !Number.isInteger(n)) throw badFaults(`'${rawKey}' must be an integer, got ${n}.`);
  return n;
}

/** Decides, reproducibly from the seed, which fault (if any) each request gets. */
export class FaultInjector {
  #spec: FaultSpec = {};
  #random: () => number = seededRandom(1);
  readonly #defaultSeed: number;

  constructor(defaultSeed: number, spec?: FaultSpec | string) {
    this.#defaultSeed = defaultSeed;
    this.set(spec ?? {});
  }

  get spec(): FaultSpec {
    return this.#spec;
  }

  set(spec: FaultSpec | string | Record<string, unknown>): void {
    this.#spec = parseFaultSpec(spec);
    this.#random = seededRandom(this.#spec.seed ?? this.#defaultSeed);
  }

  #applies(endpoint: EndpointName): boolean {
    return this.#spec.only === undefined || this.#spec.only.includes(endpoint);
  }

  decide(endpoint: EndpointName): FaultDecision {
    if (!this.#applies(endpoint)) return { latencyMs: 0, action: null };
    const latencyMs = this.#spec.latency ?? 0;
    const order: readonly FaultAction[] = ['reset', 'throttle429', 'qps403', 'error5xx', 'drop'];
    for (const action of order) {
      const share = this.#spec[action] ?? 0;
      if (share > 0 && this.#random() < share) return { latencyMs, action };
    }
    return { latencyMs, action: null };
  }

  /** listFailPage: true when listNodes is asked for a page at or after the failing one. */
  listPageFails(page: number): boolean {
    const failPage = this.#spec.listFailPage;
    return failPage !== undefined && page >= failPage && this.#applies('listNodes');
  }
}
