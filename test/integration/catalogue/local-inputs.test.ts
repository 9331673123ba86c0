import { defineCatalogue, LOCAL_INPUTS } from './run-catalogue.js';

/** Bad config, bad files, odd paths, a skewed clock and CLI misuse: each row a clear error and nothing lost. */
defineCatalogue('config, files, paths, clock, CLI', LOCAL_INPUTS);
