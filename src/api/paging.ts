import type { Endpoint } from './endpoints.js';
import { ApiError } from './errors.js';

export type Page<T> = { readonly items: readonly T[]; readonly nextToken: string | undefined };

/**
 * Walks a paged listing to its end. A token that comes back twice would loop forever (and burn
 * the call quota), so it is an error rather than a silent stop: a partial listing must never look whole.
 */
export async function* walkPages<T>(endpoint: Endpoint, fetchPage: (nextToken: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  const seen = new Set<string>();
  let token: string | undefined;
  do {
    const page = await fetchPage(token);
    yield* page.items;
    token = page.nextToken;
    if (token !== undefined) {
      if (seen.has(token)) {
        throw new ApiError('API_BAD_RESPONSE', `The service returned the same nextToken twice while paging ${endpoint}.`, { endpoint }, {
          hint: 'The listing cannot be completed; try again later, and report it if it persists.',
        });
      }
      seen.add(token);
    }
  } while (token !== undefined);
}

/** '' and missing both mean "no more pages". */
export const moreToken = (token: string | undefined): string | undefined => (token ? token : undefined);
