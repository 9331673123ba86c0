import { defineCatalogue, REMOTE_INPUTS } from './run-catalogue.js';

/** An unusable service, hostile remote titles, missing roots, mass deletes and a damaged ledger: each row a clear error and nothing lost. */
defineCatalogue('service, remote titles, root, guards, ledger', REMOTE_INPUTS);
