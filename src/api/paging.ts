import type { Endpoint } from './endpoints.js';
import { ApiError } from './errors.js';
import { SERVICE_LIMITS } from './limits.js';

type Page<T> = { readonly items: readonly T[]; readonly nextToken: string | undefined };

/**
 * Walks a paged listing to its end. A token that comes back twice would loop forever, and fresh tokens
 * without end would too (burning the call quota either way): both are errors rather than a silent stop, so
 * a partial listing never looks whole, and at most `maxPages` calls are spent finding out; empty pages with
 * fresh tokens, which say nothing at all, are refused after a few in a row.
 */
export async function* walkPages<T>(
  endpoint: Endpoint,
  fetchPage: (nextToken: string | undefined) => Promise<Page<T>>,
  maxPages: number = SERVICE_LIMITS.pagesPerListing,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let token: string | undefined;
  let pages = 0;
  let emptyInARow = 0;
  do {
    const page = await fetchPage(token);
    pages += 1;
    emptyInARow = page.items.length === 0 ? emptyInARow + 1 : 0;
    yield* page.items;
    token = page.nextToken;
    if (token === undefined) return;
    if (seen.has(token)) throw endlessListing(endpoint, 'returned the same nextToken twice');
    if (emptyInARow >= SERVICE_LIMITS.emptyPagesInARow) throw endlessListing(endpoint, `answered ${emptyInARow} empty pages in a row, with a new nextToken each time,`);
    if (pages >= maxPages) throw endlessListing(endpoint, `still had more after ${pages} pages, the most kbsync reads of one listing`);
    seen.add(token);
  } while (token !== undefined);
}

function endlessListing(endpoint: Endpoint, what: string): ApiError {
  return new ApiError('API_BAD_RESPONSE', `The service ${what} while paging ${endpoint}: the listing has no end, so it was refused, and nothing was decided from it.`, { endpoint }, {
    hint: 'No document or file was deleted, created or changed on account of it. Try again later; if it persists, the service is not answering as it should (check service.baseUrl).',
  });
}

/** '' and missing both mean "no more pages". */
export const moreToken = (token: string | undefined): string | undefined => (token ? token : undefined);
