import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KbClient } from '../../../src/api/client.js';
import type { CreatedDocument } from '../../../src/api/types.js';
import type { BlockId } from '../../../src/model/ids.js';

/**
 * Compile-time checks (tsc covers test/): the creation nodeId can never reach a body call, and
 * the body id can never reach delete or members. Each @ts-expect-error fails the type check if
 * the line ever compiles. Never called at run time.
 */
export function idMixUpsDoNotCompile(client: KbClient, created: CreatedDocument, blockId: BlockId): void {
  // @ts-expect-error a CreationNodeId is not a DocKey: reading its body would address the wrong thing
  void client.readBlocks(created.nodeId);
  // @ts-expect-error a CreationNodeId is not a DocKey
  void client.overwrite(created.nodeId, '# x');
  // @ts-expect-error a CreationNodeId is not a DocKey
  void client.appendText(created.nodeId, blockId, 'x');
  // @ts-expect-error a DocKey is not a CreationNodeId: delete needs the creation nodeId
  void client.deleteDocument(created.workspaceId, created.docKey);
  // @ts-expect-error a TreeNodeId is not a CreationNodeId
  void client.addMembers(created.workspaceId, created.treeNodeId, []);
  // @ts-expect-error a plain string is not a DocKey
  void client.readBlocks('doc-1');
  // The right ids compile.
  void client.readBlocks(created.docKey);
  void client.deleteDocument(created.workspaceId, created.nodeId);
  void client.listNodes(created.treeNodeId);
}

void test('the id brand checks live in this file and are enforced by tsc', () => {
  assert.equal(typeof idMixUpsDoNotCompile, 'function');
});
