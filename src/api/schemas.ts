import * as z from 'zod';

/**
 * Shapes of the service's answers, checked at the boundary. Loose on purpose (real-service-notes):
 * unknown fields pass, optional ones may be missing, and only what kbsync relies on is required.
 */
const str = z.string();
const optStr = z.string().optional().catch(undefined);
const optNum = z.number().optional().catch(undefined);
const optBool = z.boolean().optional().catch(undefined);

export const workspaceSchema = z.looseObject({
  workspaceId: str,
  name: z.string().catch(''),
  description: z.string().catch(''),
  rootNodeId: str,
  type: z.string().catch(''),
  url: z.string().catch(''),
  createTime: z.string().catch(''),
  modifiedTime: z.string().catch(''),
});

export const workspacePageSchema = z.looseObject({ workspaces: z.array(workspaceSchema), nextToken: optStr });

export const nodeSchema = z.looseObject({
  nodeId: str,
  name: str,
  type: z.enum(['FILE', 'FOLDER']),
  category: z.string().catch(''),
  extension: z.string().catch(''),
  workspaceId: str,
  url: z.string().catch(''),
  createTime: z.string().catch(''),
  modifiedTime: z.string().catch(''),
  modifiedTimestamp: optNum,
  hasChildren: optBool,
});
export type NodeJson = z.infer<typeof nodeSchema>;

export const nodePageSchema = z.looseObject({ nodes: z.array(nodeSchema), nextToken: optStr });
export const singleNodeSchema = z.looseObject({ node: nodeSchema });

export const createdSchema = z
  .looseObject({ dentryUuid: optStr, docKey: optStr, nodeId: str, workspaceId: str, url: z.string().catch('') })
  .refine((created) => created.dentryUuid !== undefined || created.docKey !== undefined, { message: 'neither dentryUuid nor docKey' });

/** A raw block: only `blockType` is certain; everything else is read tolerantly in blocks.ts. */
export const rawBlockSchema = z.looseObject({ id: str, index: optNum, blockType: str });
export type RawBlock = z.infer<typeof rawBlockSchema>;
export const blocksSchema = z.looseObject({ result: z.looseObject({ data: z.array(rawBlockSchema) }) });

export const appendSchema = z.looseObject({
  result: z.looseObject({ data: z.looseObject({ text: optStr }).optional().catch(undefined) }).optional().catch(undefined),
});

export const searchPageSchema = z.looseObject({
  docs: z.array(
    z.looseObject({
      nodeBO: z.looseObject({ nodeId: str, name: z.string().catch(''), url: z.string().catch('') }),
      workspaceBO: z.looseObject({ workspaceId: str }).optional().catch(undefined),
    }),
  ),
  hasMore: optBool,
  nextToken: optStr,
});

/** Answers whose body kbsync does not use (delete, members): any JSON object. */
export const anySchema = z.unknown();
