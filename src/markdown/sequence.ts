/**
 * Monotone sequence alignment (weighted LCS): pairs items of `a` and `b` in order so that the sum of
 * pair scores is largest. Used for outline ⇄ blocks, base ⇄ local nodes and remote base ⇄ remote blocks.
 */
type Aligner<A, B> = {
  /** Exact-equality keys: common prefixes and suffixes are paired without scoring. */
  readonly keyA: (item: A) => string;
  readonly keyB: (item: B) => string;
  /** Worth of pairing two items; 0 or less means they must not be paired. */
  readonly score: (x: A, y: B) => number;
};

/** Above this many cells the middle is aligned by unique keys only (bodies that large are rare). */
const MAX_CELLS = 4_000_000;

/** Pairs `[i, j]`, increasing in both. */
export function alignSequences<A, B>(a: readonly A[], b: readonly B[], aligner: Aligner<A, B>): [number, number][] {
  const keysA = a.map(aligner.keyA);
  const keysB = b.map(aligner.keyB);
  let head = 0;
  while (head < a.length && head < b.length && keysA[head] === keysB[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && keysA[a.length - 1 - tail] === keysB[b.length - 1 - tail]) tail++;
  const pairs: [number, number][] = [];
  for (let i = 0; i < head; i++) pairs.push([i, i]);
  const middle = { a0: head, a1: a.length - tail, b0: head, b1: b.length - tail };
  const n = middle.a1 - middle.a0;
  const m = middle.b1 - middle.b0;
  const inner =
    n * m <= MAX_CELLS
      ? alignByScore(n, m, (i, j) => aligner.score(a[middle.a0 + i] as A, b[middle.b0 + j] as B))
      : alignByUniqueKeys(keysA.slice(middle.a0, middle.a1), keysB.slice(middle.b0, middle.b1));
  for (const [i, j] of inner) pairs.push([middle.a0 + i, middle.b0 + j]);
  for (let k = tail; k > 0; k--) pairs.push([a.length - k, b.length - k]);
  return pairs;
}

const DIAGONAL = 1;
const UP = 2;

function alignByScore(n: number, m: number, score: (i: number, j: number) => number): [number, number][] {
  if (n === 0 || m === 0) return [];
  const moves = new Uint8Array(n * m);
  let previous = new Float64Array(m + 1);
  let current = new Float64Array(m + 1);
  for (let i = 1; i <= n; i++) {
    current[0] = 0;
    for (let j = 1; j <= m; j++) {
      const up = previous[j] as number;
      const left = current[j - 1] as number;
      let best = up >= left ? up : left;
      let move = up >= left ? UP : 0;
      const worth = score(i - 1, j - 1);
      if (worth > 0 && (previous[j - 1] as number) + worth > best) {
        best = (previous[j - 1] as number) + worth;
        move = DIAGONAL;
      }
      current[j] = best;
      moves[(i - 1) * m + (j - 1)] = move;
    }
    [previous, current] = [current, previous];
  }
  const pairs: [number, number][] = [];
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const move = moves[(i - 1) * m + (j - 1)];
    if (move === DIAGONAL) {
      pairs.push([i - 1, j - 1]);
      i--;
      j--;
    } else if (move === UP) i--;
    else j--;
  }
  return pairs.reverse();
}

/** Patience-style fallback: keys that occur once on each side, kept where they are in increasing order. */
function alignByUniqueKeys(a: readonly string[], b: readonly string[]): [number, number][] {
  const countA = new Map<string, number>();
  for (const key of a) countA.set(key, (countA.get(key) ?? 0) + 1);
  const positionB = new Map<string, number>();
  const countB = new Map<string, number>();
  b.forEach((key, j) => {
    countB.set(key, (countB.get(key) ?? 0) + 1);
    positionB.set(key, j);
  });
  const candidates: [number, number][] = [];
  a.forEach((key, i) => {
    if (countA.get(key) === 1 && countB.get(key) === 1) candidates.push([i, positionB.get(key) as number]);
  });
  return longestIncreasing(candidates);
}

/** Longest subsequence of pairs (already increasing in i) that also increases in j. */
function longestIncreasing(pairs: readonly [number, number][]): [number, number][] {
  const tails: number[] = [];
  const previous = new Int32Array(pairs.length).fill(-1);
  pairs.forEach(([, j], k) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((pairs[tails[mid] as number] as [number, number])[1] < j) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[k] = tails[low - 1] as number;
    tails[low] = k;
  });
  const out: [number, number][] = [];
  for (let k = tails.at(-1) ?? -1; k >= 0; k = previous[k] as number) out.push(pairs[k] as [number, number]);
  return out.reverse();
}
