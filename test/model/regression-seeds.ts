/**
 * Seeds of the model test that once broke a promise, with what they found: `npm test` runs each past the
 * step it broke at. Add one whenever `npm run torture` finds a failure and the fix lands.
 */
export const REGRESSION_SEEDS: readonly { readonly seed: number; readonly steps: number; readonly found: string }[] = [
  { seed: 2, steps: 20, found: 'a keyless team: every machine republished the records it could not take creation ids from' },
  { seed: 5, steps: 26, found: "a moved file's new document made from the plain reading, without another machine's link address; two writes in one second ordered by the Date header's clock" },
  { seed: 6, steps: 26, found: 'a keyless team: a rename on one machine never followed on the other' },
  { seed: 47, steps: 12, found: 'two machines moved one file at once: the second re-created the document the first had replaced' },
  { seed: 139, steps: 14, found: 'a held file moved: taken for a delete and a create, its web-editor formatting deleted with the old document' },
];
