import * as z from 'zod';

/**
 * Reads the config schema's shape, so that env overrides and "did you mean" hints follow the
 * schema by construction: a new option gets its KBSYNC_* variable without further code.
 */
export type LeafKind = 'string' | 'number' | 'boolean' | 'list' | 'choice';

export type Leaf = {
  /** Key path, e.g. ['service', 'rateLimit']. */
  readonly path: readonly string[];
  readonly kind: LeafKind;
  readonly nullable: boolean;
  /** For a one-key object inside a union (the token source): the env value replaces the whole object. */
  readonly replacesParent: boolean;
};

type Unwrapped = { readonly schema: z.ZodType; readonly nullable: boolean };

export function unwrap(schema: z.ZodType): Unwrapped {
  let current = schema;
  let nullable = false;
  for (;;) {
    if (current instanceof z.ZodNullable) nullable = true;
    if (current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
      current = current.unwrap() as z.ZodType;
    } else {
      return { schema: current, nullable };
    }
  }
}

export function leavesOf(schema: z.ZodType, prefix: readonly string[] = []): Leaf[] {
  const { schema: inner, nullable } = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape as Record<string, z.ZodType>)
      .filter(([key]) => key !== '$schema')
      .flatMap(([key, child]) => leavesOf(child, [...prefix, key]));
  }
  if (inner instanceof z.ZodUnion) {
    return (inner.options as z.ZodType[]).flatMap((option) =>
      leavesOf(option, prefix).map((leaf) => ({ ...leaf, replacesParent: true })),
    );
  }
  return [{ path: prefix, kind: kindOf(inner), nullable, replacesParent: false }];
}

function kindOf(schema: z.ZodType): LeafKind {
  if (schema instanceof z.ZodNumber) return 'number';
  if (schema instanceof z.ZodBoolean) return 'boolean';
  if (schema instanceof z.ZodArray) return 'list';
  if (schema instanceof z.ZodEnum) return 'choice';
  return 'string';
}

/** The keys an object at `path` accepts (for "did you mean"); empty when there is no object there. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema).schema;
  for (const key of path) {
    if (!(current instanceof z.ZodObject)) return [];
    const child = (current.shape as Record<string, z.ZodType | undefined>)[String(key)];
    if (!child) return [];
    current = unwrap(child).schema;
  }
  if (current instanceof z.ZodUnion) {
    return (current.options as z.ZodType[]).flatMap((option) => knownKeysAt(option, []));
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape as object) : [];
}

/** KBSYNC_ + the key path in upper snake case: service.baseUrl → KBSYNC_SERVICE_BASE_URL. */
export function envNameOf(path: readonly string[]): string {
  return `KBSYNC_${path.map((key) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_')}`;
}
