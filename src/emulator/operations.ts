import type { Clock } from './clock.js';
import { docNotExist, nodeNotExist, paramError, ServiceError, workspaceNotExist } from './errors.js';
import { assignIds } from './markdown/assign-ids.js';
import { markdownToBlocks } from './markdown/to-blocks.js';
import type { IdGenerator } from './random.js';
import type { Store } from './store/store.js';
import type { DocType, NodeRow, StoredBlock, WorkspaceRow } from './store/types.js';

const MAX_NAME_LENGTH = 255;

/** Id shapes: opaque like the real ones, but of different lengths so a mix-up is visible in a dump. */
const idLength = { workspace: 20, dentry: 32, creation: 24, block: 16, list: 12 } as const;

type CreateNodeInput = {
  readonly workspaceId: string;
  readonly parentId?: string | undefined;
  readonly name: string;
  readonly docType: Exclude<DocType, 'ROOT'>;
  readonly actor: string;
  readonly markdown?: string | undefined;
};

/**
 * The domain rules shared by the service routes and the admin (remote edits): id lookups with the
 * contract's error codes, name rules, body writes. Every change moves modifiedTime and modifierId.
 */
export class Operations {
  readonly store: Store;
  readonly ids: IdGenerator;
  readonly clock: Clock;

  constructor(store: Store, ids: IdGenerator, clock: Clock) {
    this.store = store;
    this.ids = ids;
    this.clock = clock;
  }

  requireWorkspace(workspaceId: string): WorkspaceRow {
    const workspace = this.store.workspace(workspaceId);
    if (!workspace) throw workspaceNotExist(workspaceId);
    return workspace;
  }

  /** Node endpoints and parents take the tree id (the dentryUuid); a creation nodeId is unknown there. */
  requireTreeNode(nodeId: string): NodeRow {
    const node = this.store.node(nodeId);
    if (node) return node;
    const hint = this.store.nodeByCreationId(nodeId)
      ? 'It is a creation nodeId, which only the delete and member endpoints take; use the dentryUuid.'
      : '';
    throw nodeNotExist(nodeId, hint);
  }

  /** Delete and member endpoints take ONLY the creation nodeId, in its own workspace. */
  requireCreationNode(workspaceId: string, nodeId: string): NodeRow {
    this.requireWorkspace(workspaceId);
    const node = this.store.nodeByCreationId(nodeId);
    if (node && node.workspaceId === workspaceId) return node;
    const hint = this.store.node(nodeId)
      ? 'It is a dentryUuid (body id); delete and member endpoints take the nodeId from the creation response.'
      : node
        ? `It belongs to workspace '${node.workspaceId}'.`
        : '';
    throw nodeNotExist(nodeId, hint);
  }

  /** Body endpoints take the dentryUuid/docKey of a rich-text document, never the creation nodeId. */
  requireBodyDoc(docKey: string): NodeRow {
    const node = this.store.node(docKey);
    if (!node) {
      const hint = this.store.nodeByCreationId(docKey)
        ? 'It is a creation nodeId, which must not be used for body read/write; use dentryUuid/docKey.'
        : '';
      throw docNotExist(docKey, hint);
    }
    if (node.docType !== 'DOC') {
      const kind = node.docType === 'WORKBOOK' || node.docType === 'MIND' ? `a ${node.docType} file` : 'a folder';
      throw paramError(`Node '${docKey}' is ${kind}, not a rich-text document; body endpoints need a document's docKey.`);
    }
    return node;
  }

  addWorkspace(name: string, description: string): WorkspaceRow {
    const now = this.clock.now();
    const workspaceId = this.ids.id(idLength.workspace);
    const rootNodeId = this.ids.id(idLength.dentry);
    return this.store.transaction(() => {
      this.store.addWorkspace({ workspaceId, name, description, rootNodeId, createdAt: now, modifiedAt: now });
      this.store.addNode({
        dentryUuid: rootNodeId,
        creationNodeId: this.ids.id(idLength.creation),
        workspaceId,
        parentId: null,
        title: name,
        docType: 'ROOT',
        creatorId: '',
        modifierId: '',
        createdAt: now,
        modifiedAt: now,
      });
      return this.requireWorkspace(workspaceId);
    });
  }

  createNode(input: CreateNodeInput): NodeRow {
    const workspace = this.requireWorkspace(input.workspaceId);
    const parent = input.parentId === undefined ? this.requireTreeNode(workspace.rootNodeId) : this.requireTreeNode(input.parentId);
    if (parent.workspaceId !== workspace.workspaceId) {
      throw nodeNotExist(parent.dentryUuid, `It is not in workspace '${workspace.workspaceId}'.`);
    }
    const title = this.#checkName(input.name, parent.dentryUuid, input.docType);
    const now = this.clock.now();
    const dentryUuid = this.ids.id(idLength.dentry);
    return this.store.transaction(() => {
      this.store.addNode({
        dentryUuid,
        creationNodeId: this.ids.id(idLength.creation),
        workspaceId: workspace.workspaceId,
        parentId: parent.dentryUuid,
        title,
        docType: input.docType,
        creatorId: input.actor,
        modifierId: input.actor,
        createdAt: now,
        modifiedAt: now,
      });
      this.store.touchWorkspace(workspace.workspaceId, now);
      if (input.docType === 'DOC') this.store.setBody(dentryUuid, { markdown: '', blocks: [] });
      const node = this.requireTreeNode(dentryUuid);
      if (input.markdown !== undefined && input.docType === 'DOC') this.writeBody(node, input.markdown, input.actor, false);
      return this.requireTreeNode(dentryUuid);
    });
  }

  /** Replaces the body. An overwrite gives all blocks fresh ids; a remote edit keeps unchanged blocks' ids. */
  writeBody(node: NodeRow, markdown: string, actor: string, keepUnchangedIds: boolean): readonly StoredBlock[] {
    const converted = markdownToBlocks(markdown, () => this.ids.id(idLength.list));
    const previous = keepUnchangedIds ? this.store.body(node.dentryUuid)?.blocks : undefined;
    const blocks = assignIds(converted, () => this.ids.id(idLength.block).toLowerCase(), previous);
    this.store.transaction(() => {
      this.store.setBody(node.dentryUuid, { markdown, blocks });
      this.#touch(node, actor);
    });
    return blocks;
  }

  /** Appends plain text to a paragraph block and to that paragraph's Markdown source; answers the whole text. */
  appendText(node: NodeRow, blockId: string, text: string, actor: string): string {
    const body = this.store.body(node.dentryUuid) ?? { markdown: '', blocks: [] };
    const at = body.blocks.findIndex((stored) => stored.block.id === blockId);
    const target = body.blocks[at];
    if (!target) throw new ServiceError(404, 'blockNotExist', `Block '${blockId}' does not exist in document '${node.dentryUuid}'. Read the blocks again for current ids.`);
    const paragraph = target.block['paragraph'] as { text: string } | undefined;
    if (target.block.blockType !== 'paragraph' || !paragraph || target.sourceEnd === undefined) {
      throw paramError(`Block '${blockId}' is a ${target.block.blockType} block; appendText works on paragraph blocks only.`);
    }
    const insertAt = target.sourceEnd;
    const markdown = body.markdown.slice(0, insertAt) + text + body.markdown.slice(insertAt);
    const whole = paragraph.text + text;
    const blocks = body.blocks.map((stored, index): StoredBlock => {
      if (index === at) return { block: { ...stored.block, paragraph: { text: whole } }, sourceEnd: insertAt + text.length };
      if (index > at && stored.sourceEnd !== undefined) return { ...stored, sourceEnd: stored.sourceEnd + text.length };
      return stored;
    });
    this.store.transaction(() => {
      this.store.setBody(node.dentryUuid, { markdown, blocks });
      this.#touch(node, actor);
    });
    return whole;
  }

  rename(node: NodeRow, name: string, actor: string): void {
    if (node.docType === 'ROOT') throw paramError('The root node of a workspace cannot be renamed.');
    const title = this.#checkName(stripExtension(name, node.docType), node.parentId ?? '', node.docType, node.dentryUuid);
    this.store.updateNode(node.dentryUuid, { title, modifierId: actor, modifiedAt: this.clock.now() });
  }

  move(node: NodeRow, newParentId: string, actor: string): void {
    if (node.docType === 'ROOT') throw paramError('The root node of a workspace cannot be moved.');
    const parent = this.requireTreeNode(newParentId);
    if (parent.workspaceId !== node.workspaceId) throw paramError(`Node '${newParentId}' is in another workspace; moves stay within one workspace.`);
    for (let at: NodeRow | undefined = parent; at; at = at.parentId ? this.store.node(at.parentId) : undefined) {
      if (at.dentryUuid === node.dentryUuid) throw paramError(`Cannot move '${node.dentryUuid}' under itself or its own descendant.`);
    }
    this.#checkName(node.title, parent.dentryUuid, node.docType, node.dentryUuid);
    this.store.updateNode(node.dentryUuid, { parentId: parent.dentryUuid, modifierId: actor, modifiedAt: this.clock.now() });
  }

  delete(node: NodeRow): void {
    if (node.docType === 'ROOT') throw paramError('The root node of a workspace cannot be deleted.');
    this.store.transaction(() => {
      this.store.deleteSubtree(node.dentryUuid);
      this.store.touchWorkspace(node.workspaceId, this.clock.now());
    });
  }

  #touch(node: NodeRow, actor: string): void {
    this.store.updateNode(node.dentryUuid, { modifierId: actor, modifiedAt: this.clock.now() });
  }

  /** Non-empty, at most MAX_NAME_LENGTH characters, unique among same-kind siblings. */
  #checkName(name: string, parentId: string, docType: DocType, self?: string): string {
    if (name.trim() === '') throw paramError('name must not be empty.');
    if (name.length > MAX_NAME_LENGTH) throw paramError(`name is ${name.length} characters long; at most ${MAX_NAME_LENGTH} are allowed.`);
    const clash = this.store.children(parentId).find((sibling) => sibling.title === name && sibling.docType === docType && sibling.dentryUuid !== self);
    if (clash) {
      throw new ServiceError(400, 'invalidRequest.workspaceNode.nameConflict', `A ${docType === 'FOLDER' ? 'folder' : 'document'} named '${name}' already exists under this parent (${clash.dentryUuid}).`);
    }
    return name;
  }
}

function stripExtension(name: string, docType: DocType): string {
  return docType === 'DOC' && name.endsWith('.adoc') ? name.slice(0, -'.adoc'.length) : name;
}
