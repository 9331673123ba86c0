/** One line of an edit script: kept (' '), removed ('-') or added ('+'). */
type Edit = { readonly op: ' ' | '-' | '+'; readonly text: string; readonly a: number; readonly b: number };

const splitLines = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

/**
 * Shortest edit script between two line lists (Myers' O(ND) algorithm): documents are long and their
 * changes small, so this stays fast where a full LCS table would not.
 */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  const max = a.length + b.length;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number)) ? (v[offset + k + 1] as number) : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= a.length && y >= b.length) {
        found = true;
        break;
      }
    }
  }
  // Walk the trace back from the end to recover the path.
  const edits: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d] as Int32Array;
    const k = x - y;
    const prevK = k === -d || (k !== d && (vd[offset + k - 1] as number) < (vd[offset + k + 1] as number)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : (vd[offset + prevK] as number);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      edits.push({ op: ' ', text: a[x] as string, a: x, b: y });
    }
    if (d === 0) break;
    if (x === prevX) edits.push({ op: '+', text: b[prevY] as string, a: x, b: prevY });
    else edits.push({ op: '-', text: a[prevX] as string, a: prevX, b: y });
    x = prevX;
    y = prevY;
  }
  return edits.reverse();
}

/**
 * A unified diff (`--- a` / `+++ b` / `@@ -l,n +l,n @@` hunks, `context` lines around each change), the
 * format people read in code review and tools such as `patch` apply. Empty when the texts are equal.
 */
export function unifiedDiff(before: string, after: string, labels: { readonly from: string; readonly to: string }, context = 3): string {
  if (before === after) return '';
  const edits = editScript(splitLines(before), splitLines(after));
  const changed = edits.map((edit, i) => (edit.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return ''; // only a final newline differs
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`];
  let i = 0;
  while (i < changed.length) {
    const start = Math.max(0, (changed[i] as number) - context);
    let end = Math.min(edits.length, (changed[i] as number) + context + 1);
    while (i + 1 < changed.length && (changed[i + 1] as number) - context <= end) {
      i++;
      end = Math.min(edits.length, (changed[i] as number) + context + 1);
    }
    const hunk = edits.slice(start, end);
    const first = hunk[0] as Edit;
    const aCount = hunk.filter((e) => e.op !== '+').length;
    const bCount = hunk.filter((e) => e.op !== '-').length;
    const aStart = aCount === 0 ? first.a : first.a + 1;
    const bStart = bCount === 0 ? first.b : first.b + 1;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`, ...hunk.map((e) => `${e.op}${e.text}`));
    i++;
  }
  return `${out.join('\n')}\n`;
}

/** The lines `after` has that `before` does not: what the demo shows arriving. */
export function addedLines(before: string, after: string): string[] {
  return editScript(splitLines(before), splitLines(after))
    .filter((edit) => edit.op === '+')
    .map((edit) => edit.text);
}

/** How many items of a list changed: a replaced item counts once, as does one added or removed. */
export function changedItems(before: readonly string[], after: readonly string[]): number {
  const edits = editScript(before, after);
  return Math.max(edits.filter((edit) => edit.op === '-').length, edits.filter((edit) => edit.op === '+').length);
}
