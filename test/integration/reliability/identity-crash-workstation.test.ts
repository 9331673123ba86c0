import { identityCrashMatrix } from '../../helpers/identity-crash.js';

// A move and two creates killed at each of their crash points, as a workstation runs them (its ledger kept): see the helper.
identityCrashMatrix('workstation');
