import { KbClient, type KbClientOptions } from '../../../src/api/client.js';
import { staticToken } from '../../../src/api/token.js';
import { asUnionId } from '../../../src/model/ids.js';
import { RequestQueue, type RequestQueueOptions } from '../../../src/queue/request-queue.js';
import type { RunningEmulator } from '../../helpers/emulator.js';

/** A kbsync client of a running emulator, with its own queue; backoff shortened so fault tests stay quick. */
export function emulatorClient(em: RunningEmulator, options: Partial<KbClientOptions> = {}, queueOptions: RequestQueueOptions = {}): KbClient {
  return new KbClient({
    baseUrl: em.seed.baseUrl,
    tokenHeader: em.seed.tokenHeader,
    token: staticToken(em.seed.token),
    operatorId: asUnionId(em.seed.operatorId),
    queue: new RequestQueue(queueOptions),
    retry: { baseDelayMs: 20, maxDelayMs: 200 },
    ...options,
  });
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
