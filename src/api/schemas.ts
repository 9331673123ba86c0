import * as z from 'zod/mini';
import { urlIdProblem, urlIdRefusal } from '../model/ids.js';

/**
 * Shapes of the service's answers, checked at the boundary. Loose on purpose (real-service-notes):
 * unknown fields pass, optional ones may be missing, and only what kbsync relies on is required.
 * zod/mini (the same checks, without a method table per schema): zod's classic form was a tenth of every run's start.
 */
const str = z.string();
const optStr = z.catch(z.optional(z.string()), undefined);
/** An id kbsync may put into a URL path: refused where it could address another endpoint (model/ids.ts). */
const id = z.string().check(
  z.superRefine((value: string, ctx) => {
    const problem = urlIdProblem(value);
    if (problem) ctx.issues.push({ code: 'custom', message: urlIdRefusal(value, problem), input: value });
  }),
);
/** The same, for an id the answer may leave out: a wrong type is ignored (read tolerantly), an unsafe id is not. */
const optId = z.pipe(optStr, z.optional(id));
const textOr = (fallback: string) => z.catch(z.string(), fallback);
const optNum = z.catch(z.optional(z.number()), undefined);
const optBool = z.catch(z.optional(z.boolean()), undefined);
const tolerant = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);

export const workspaceSchema = z.looseObject({
  workspaceId: id,
  name: textOr(''),
  description: textOr(''),
  rootNodeId: id,
  type: textOr(''),
  url: textOr(''),
  createTime: textOr(''),
  modifiedTime: textOr(''),
});

export const workspacePageSchema = z.looseObject({ workspaces: z.array(workspaceSchema), nextToken: optStr });

export const nodeSchema = z.looseObject({
  nodeId: id,
  name: str,
  type: z.enum(['FILE', 'FOLDER']),
  category: textOr(''),
  extension: textOr(''),
  workspaceId: id,
  url: textOr(''),
  createTime: textOr(''),
  modifiedTime: textOr(''),
  modifiedTimestamp: optNum,
  hasChildren: optBool,
});
export type NodeJson = z.infer<typeof nodeSchema>;

export const nodePageSchema = z.looseObject({ nodes: z.array(nodeSchema), nextToken: optStr });
export const singleNodeSchema = z.looseObject({ node: nodeSchema });

export const createdSchema = z
  .looseObject({ dentryUuid: optId, docKey: optId, nodeId: id, workspaceId: id, url: textOr('') })
  .check(z.refine((created) => created.dentryUuid !== undefined || created.docKey !== undefined, { message: 'neither dentryUuid nor docKey' }));

/** A raw block: only `blockType` is certain; everything else is read tolerantly in blocks.ts. */
export const rawBlockSchema = z.looseObject({ id, index: optNum, blockType: str });
export type RawBlock = z.infer<typeof rawBlockSchema>;
export const blocksSchema = z.looseObject({ result: z.looseObject({ data: z.array(rawBlockSchema) }) });

export const appendSchema = z.looseObject({
  result: tolerant(z.looseObject({ data: tolerant(z.looseObject({ text: optStr })) })),
});

export const searchPageSchema = z.looseObject({
  docs: z.array(
    z.looseObject({
      nodeBO: z.looseObject({ nodeId: id, name: textOr(''), url: textOr('') }),
      workspaceBO: tolerant(z.looseObject({ workspaceId: id })),
    }),
  ),
  hasMore: optBool,
  nextToken: optStr,
});

/** Answers whose body kbsync does not use (delete, members): any JSON object. */
export const anySchema = z.unknown();
