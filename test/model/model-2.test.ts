import { replaySeeds } from './replay-seeds.js';

// The second half of the model test's regression seeds (replay-seeds.ts says why they are two files).
replaySeeds(1);
