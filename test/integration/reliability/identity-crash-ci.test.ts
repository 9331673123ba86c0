import { identityCrashMatrix } from '../../helpers/identity-crash.js';

// A move and two creates killed at each of their crash points, as a CI job runs them (a fresh checkout: no ledger): see the helper.
identityCrashMatrix('ci');
