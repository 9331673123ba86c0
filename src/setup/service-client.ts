import { KbClient } from '../api/index.js';
import { createTokenSource, type Config, type Env, type TokenSource } from '../config/index.js';
import type { Logger } from '../log.js';
import { asUnionId } from '../model/ids.js';
import { RequestQueue } from '../queue/index.js';
import { shareSecretsWithCommands } from '../secrets.js';

/** The `service` section of the configuration: all a client needs. */
export type ServiceSettings = Config['service'];

type ServiceClient = { readonly client: KbClient; readonly token: TokenSource };

/**
 * A client for one service, from its settings. Commands that have a whole configuration get one through
 * openSession; `init`, `clone` and `workspaces` build one before any configuration exists. `localNow`: the
 * clock the service's time is estimated on (KbClientOptions.localNow), given only by tests.
 */
export function createServiceClient(service: ServiceSettings, context: { readonly env: Env; readonly cwd: string; readonly logger: Logger; readonly localNow?: () => number }): ServiceClient {
  shareSecretsWithCommands(service.shareToken);
  const queue = new RequestQueue({ rate: service.rateLimit, concurrency: service.concurrency });
  // A token command still running when kbsync stops (the queue closes) is stopped with it.
  const token = createTokenSource(service.token, { env: context.env, cwd: context.cwd, signal: queue.signal });
  const client = new KbClient({
    baseUrl: service.baseUrl,
    tokenHeader: service.tokenHeader,
    token,
    operatorId: asUnionId(service.operatorId),
    queue,
    timeoutMs: service.timeoutMs,
    logger: context.logger,
    ...(context.localNow ? { localNow: context.localNow } : {}),
  });
  return { client, token };
}
