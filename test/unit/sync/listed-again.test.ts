import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KbClient, RemoteNode } from '../../../src/api/index.js';
import { FolderListings, LISTING_STANDS_MS, listingAged } from '../../../src/sync/act/listed-again.js';
import type { RemoteDoc } from '../../../src/sync/decide/types.js';
import type { DocKey, TreeNodeId } from '../../../src/model/ids.js';

const doc = (key: string, folder: string, modifiedTime = '2026-11-02T09:00Z'): RemoteDoc => ({
  docKey: key as DocKey,
  treeNodeId: key as TreeNodeId,
  parentTreeNodeId: folder as TreeNodeId,
  title: key,
  url: '',
  modifiedTime,
  localPath: `${key}.md`,
});

/** A service whose folders list what `times` says now, counting the listings. */
function service(times: Map<string, Map<string, string>>, failing: Set<string> = new Set()) {
  const listed: string[] = [];
  const client = {
    async *listNodes(folder: TreeNodeId): AsyncIterable<RemoteNode> {
      listed.push(folder);
      if (failing.has(folder)) throw new Error(`listing ${folder} failed`);
      for (const [key, modifiedTime] of times.get(folder) ?? []) yield { docKey: key, treeNodeId: key, modifiedTime } as unknown as RemoteNode;
    },
  } as unknown as KbClient;
  return { client, listed };
}

test('a listing stands for a minute of reads; an unknown one is never aged', () => {
  const at = Date.UTC(2026, 10, 2, 9, 0);
  assert.equal(listingAged({ ...doc('a', 'f'), listedAt: at }, new Date(at + LISTING_STANDS_MS)), false);
  assert.equal(listingAged({ ...doc('a', 'f'), listedAt: at }, new Date(at + LISTING_STANDS_MS + 1)), true);
  assert.equal(listingAged(doc('a', 'f'), new Date(at + 10 * LISTING_STANDS_MS)), false);
});

test('one listing of a folder answers for its documents read within a minute after it, and is made again past that', async () => {
  let now = 1_000_000;
  const times = new Map([['f', new Map([['a', '2026-11-02T09:00Z'], ['b', '2026-11-02T09:03Z']])]]);
  const { client, listed } = service(times);
  const listings = new FolderListings(client, () => new Date(now));
  assert.deepEqual(await listings.timeOf(doc('a', 'f'), now), { modifiedTime: '2026-11-02T09:00Z', at: 1_000_000 });
  now += LISTING_STANDS_MS / 2;
  assert.deepEqual(await listings.timeOf(doc('b', 'f'), now), { modifiedTime: '2026-11-02T09:03Z', at: 1_000_000 }, 'the kept listing, made half a minute before this read');
  assert.deepEqual(await listings.timeOf(doc('gone', 'f'), now), { modifiedTime: undefined, at: 1_000_000 }, 'a document no longer in the folder');
  assert.deepEqual(listed, ['f']);
  now += LISTING_STANDS_MS;
  times.get('f')?.set('a', '2026-11-02T09:05Z');
  assert.deepEqual(await listings.timeOf(doc('a', 'f'), now), { modifiedTime: '2026-11-02T09:05Z', at: now }, 'listed again, after this read');
  assert.deepEqual(listed, ['f', 'f']);
});

test('a failed listing is not kept: the next document asks again', async () => {
  const failing = new Set(['f']);
  const { client, listed } = service(new Map([['f', new Map([['a', '2026-11-02T09:00Z']])]]), failing);
  const listings = new FolderListings(client, () => new Date(5_000));
  await assert.rejects(listings.timeOf(doc('a', 'f'), 5_000), /listing f failed/);
  failing.clear();
  assert.equal((await listings.timeOf(doc('a', 'f'), 5_000)).modifiedTime, '2026-11-02T09:00Z');
  assert.deepEqual(listed, ['f', 'f']);
});
