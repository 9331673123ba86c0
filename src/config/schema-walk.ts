import * as z from 'zod/mini';

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

type Unwrapped = { readonly schema: z.ZodMiniType; readonly nullable: boolean };

function unwrap(schema: z.ZodMiniType): Unwrapped {
  let current = schema;
  let nullable = false;
  for (;;) {
    if (current instanceof z.ZodMiniNullable) nullable = true;
    if (current instanceof z.ZodMiniDefault || current instanceof z.ZodMiniPrefault || current instanceof z.ZodMiniOptional || current instanceof z.ZodMiniNullable) {
      current = current._zod.def.innerType as z.ZodMiniType;
    } else {
      return { schema: current, nullable };
    }
  }
}

export function leavesOf(schema: z.ZodMiniType, prefix: readonly string[] = []): Leaf[] {
  const { schema: inner, nullable } = unwrap(schema);
  if (inner instanceof z.ZodMiniObject) {
    return Object.entries(inner.shape as Record<string, z.ZodMiniType>)
      .filter(([key]) => key !== '$schema')
      .flatMap(([key, child]) => leavesOf(child, [...prefix, key]));
  }
  if (inner instanceof z.ZodMiniUnion) {
    return (inner._zod.def.options as z.ZodMiniType[]).flatMap((option) =>
      leavesOf(option, prefix).map((leaf) => ({ ...leaf, replacesParent: true })),
    );
  }
  return [{ path: prefix, kind: kindOf(inner), nullable, replacesParent: false }];
}

function kindOf(schema: z.ZodMiniType): LeafKind {
  if (schema instanceof z.ZodMiniNumber) return 'number';
  if (schema instanceof z.ZodMiniBoolean) return 'boolean';
  if (schema instanceof z.ZodMiniArray) return 'list';
  if (schema instanceof z.ZodMiniEnum) return 'choice';
  return 'string';
}

/** The keys an object at `path` accepts (for "did you mean"); empty when there is no object there. */
export function knownKeysAt(schema: z.ZodMiniType, path: readonly PropertyKey[]): string[] {
  let current = unwrap(schema).schema;
  for (const key of path) {
    if (!(current instanceof z.ZodMiniObject)) return [];
    const child = (current.shape as Record<string, z.ZodMiniType | undefined>)[String(key)];
    if (!child) return [];
    current = unwrap(child).schema;
  }
  if (current instanceof z.ZodMiniUnion) {
    return (current._zod.def.options as z.ZodMiniType[]).flatMap((option) => knownKeysAt(option, []));
  }
  return current instanceof z.ZodMiniObject ? Object.keys(current.shape as object) : [];
}

/** KBSYNC_ + the key path in upper snake case: service.baseUrl → KBSYNC_SERVICE_BASE_URL. */
export function envNameOf(path: readonly string[]): string {
  return `KBSYNC_${path.map((key) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_')}`;
}
