/** Tokens in groups that each fill one new document (with room for its creation ids). */
export function pack(tokens: readonly string[], room: number): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let chars = 0;
  for (const token of tokens) {
    if (group.length > 0 && chars + token.length + 1 > room) {
      groups.push(group);
      group = [];
      chars = 0;
    }
    group.push(token);
    chars += token.length + 1;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Records in batches whose tokens stay well under one document. */
export function batches<T>(records: readonly T[], chars = 30_000): T[][] {
  const out: T[][] = [];
  let batch: T[] = [];
  let size = 0;
  for (const record of records) {
    const length = JSON.stringify(record).length;
    if (batch.length > 0 && size + length > chars) {
      out.push(batch);
      batch = [];
      size = 0;
    }
    batch.push(record);
    size += length;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
