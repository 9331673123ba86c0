import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Block } from '../../../src/model/blocks.js';
import { align, merge3, toPushMarkdown, type MergeResult } from '../../../src/markdown/index.js';
import { contentKey, contentOfBlock } from '../../../src/markdown/normalise.js';
import { contentOf, segmentBody } from '../../../src/markdown/segments.js';
import { applyPartEdits, documentParts, join, partEdits } from './helpers/documents.js';
import { applyRemoteEdits, remoteEdits } from './helpers/remote-edits.js';
import { simulateServiceRead } from './helpers/service-read.js';

const RUNS = { numRuns: Number(process.env.KBSYNC_FC_RUNS ?? 100) };
const keys = (blocks: readonly Block[]): string[] => blocks.map((block) => contentKey(contentOfBlock(block)));

/** A synced document: its body, what the service read back, and the alignment the ledger stored. */
function synced(parts: readonly string[]) {
  const base = join(parts);
  const remoteBase = simulateServiceRead(toPushMarkdown(base));
  return { base, remoteBase, alignment: align(base, remoteBase) };
}

const everywhere = (result: MergeResult): string =>
  [result.body, ...result.conflicts.flatMap((c) => [c.localText, c.remoteText])].join('\n');

describe('merge3 properties (generated documents, simulated service reads)', () => {
  test('local unchanged: the result reads as the remote, and unchanged blocks keep their local source', () => {
    fc.assert(
      fc.property(documentParts, remoteEdits, (parts, edits) => {
        const { base, remoteBase, alignment } = synced(parts);
        const { blocks: remote } = applyRemoteEdits(remoteBase, edits, 'zremote');
        const result = merge3({ base, remoteBase, remote, local: base, alignment });
        assert.deepEqual(result.conflicts, []);
        assert.equal(result.needsPush, false);
        assert.deepEqual(keys(simulateServiceRead(result.body)), keys(remote));
        const segments = segmentBody(base).segments;
        const untouched = new Set(remote.map((block) => block.id as string));
        alignment.map.forEach((j, b) => {
          const block = j === null ? undefined : remoteBase[j];
          const after = remote.find((r) => r.id === block?.id);
          if (!block || !after || !untouched.has(block.id) || contentKey(contentOfBlock(after)) !== contentKey(contentOfBlock(block))) return;
          assert.ok(result.body.includes(contentOf(base, segments[b]!)), `kept source of block ${b}`);
        });
      }),
      RUNS,
    );
  });

  test('remote unchanged: the result is the local body byte for byte', () => {
    fc.assert(
      fc.property(documentParts, partEdits, (parts, edits) => {
        const { base, remoteBase, alignment } = synced(parts);
        const local = join(applyPartEdits(parts, edits, 'zlocal').parts);
        const result = merge3({ base, remoteBase, remote: remoteBase, local, alignment });
        assert.equal(result.body, local);
        assert.deepEqual(result.conflicts, []);
        assert.equal(result.remoteChanged, false);
      }),
      RUNS,
    );
  });

  test('nothing either side added is lost: every new text is in the result or in a conflict', () => {
    fc.assert(
      fc.property(documentParts, partEdits, remoteEdits, (parts, localEdits, edits) => {
        const { base, remoteBase, alignment } = synced(parts);
        const local = applyPartEdits(parts, localEdits, 'zlocal');
        const remote = applyRemoteEdits(remoteBase, edits, 'zremote');
        const result = merge3({ base, remoteBase, remote: remote.blocks, local: join(local.parts), alignment });
        for (const marker of [...local.markers, ...remote.markers]) assert.ok(everywhere(result).includes(marker), `${marker} kept`);
      }),
      RUNS,
    );
  });

  test('idempotent: merging again onto the merged body changes nothing and duplicates nothing', () => {
    fc.assert(
      fc.property(documentParts, partEdits, remoteEdits, (parts, localEdits, edits) => {
        const { base, remoteBase, alignment } = synced(parts);
        const local = join(applyPartEdits(parts, localEdits, 'zlocal').parts);
        const { blocks: remote } = applyRemoteEdits(remoteBase, edits, 'zremote');
        const first = merge3({ base, remoteBase, remote, local, alignment });
        // The merged body written but the sync not recorded (a crash): the same inputs again.
        const again = merge3({ base, remoteBase, remote, local: first.body, alignment });
        assert.equal(again.body, first.body);
        // The merged body recorded as the new base, with nothing changed since.
        const pushed = simulateServiceRead(toPushMarkdown(first.body));
        const settled = merge3({ base: first.body, remoteBase: pushed, remote: pushed, local: first.body });
        assert.equal(settled.body, first.body);
        assert.equal(settled.needsPush, false);
      }),
      RUNS,
    );
  });

  test('steady state: push → read back → pull → push sends the same Markdown', () => {
    fc.assert(
      fc.property(documentParts, (parts) => {
        const body = join(parts);
        const pushed = toPushMarkdown(body);
        const readBack = simulateServiceRead(pushed);
        const pulled = merge3({ base: body, remoteBase: readBack, remote: readBack, local: body });
        assert.equal(pulled.body, body);
        assert.equal(pulled.needsPush, false);
        assert.equal(toPushMarkdown(pulled.body), pushed);
      }),
      RUNS,
    );
  });

  // Soak seed 502: a word here on one line of a paragraph, a colleague's on another, was taken for a clash.
  test('one paragraph edited on both sides: lines apart merge (both words kept), the same or neighbouring lines clash', () => {
    const word = fc.stringMatching(/^[a-z]{2,8}$/);
    fc.assert(
      fc.property(fc.array(fc.array(word, { minLength: 2, maxLength: 5 }), { minLength: 3, maxLength: 7 }), fc.nat(), fc.nat(), (lines, i, j) => {
        const texts = lines.map((words) => words.join(' '));
        const { base, remoteBase, alignment } = synced(['# T', texts.join('\n'), 'End.']);
        const mine = i % texts.length;
        const theirs = j % texts.length;
        const local = `# T\n\n${texts.map((text, k) => (k === mine ? `${text} zlocal` : text)).join('\n')}\n\nEnd.\n`;
        const remote = remoteBase.map((block) => (block.type === 'paragraph' && block.text === texts.join('\n') ? { ...block, text: texts.map((text, k) => (k === theirs ? `zremote ${text}` : text)).join('\n') } : block));
        const result = merge3({ base, remoteBase, remote, local, alignment });
        const apart = Math.abs(mine - theirs) > 1;
        assert.equal(result.conflicts.length, apart ? 0 : 1);
        assert.ok(result.body.includes(`${texts[mine]} zlocal`), 'the local word stays in the file');
        if (apart) assert.ok(result.body.includes(`zremote ${texts[theirs]}`), "the remote's word comes in");
        else assert.ok(result.conflictCopyBody?.includes(`zremote ${texts[theirs]}`), "the remote's word is in the conflict copy");
      }),
      RUNS,
    );
  });

  test('conflicts only where both sides changed the same block differently', () => {
    fc.assert(
      fc.property(documentParts, fc.nat(), fc.nat(), fc.boolean(), (parts, i, j, sameText) => {
        const { base, remoteBase, alignment } = synced(parts);
        const editable = alignment.map
          .map((r, b) => ({ b, r }))
          .filter(({ r }) => r !== null && ['paragraph', 'heading'].includes(remoteBase[r]!.type));
        fc.pre(editable.length > 0);
        const mine = editable[i % editable.length]!;
        const theirs = editable[j % editable.length]!;
        const segments = segmentBody(base).segments;
        const localText = 'zlocal edit';
        const remoteText = sameText ? localText : 'zremote edit';
        const target = segments[mine.b]!;
        const prefix = target.node.type === 'heading' ? `${'#'.repeat(target.node.level ?? 1)} ` : '';
        const local = base.slice(0, target.start) + prefix + localText + base.slice(target.end);
        const remote = remoteBase.map((block, k) => (k === theirs.r && 'text' in block ? { ...block, text: remoteText } : block));
        const result = merge3({ base, remoteBase, remote, local, alignment });
        const clash = mine.b === theirs.b && !sameText;
        assert.equal(result.conflicts.length, clash ? 1 : 0);
        if (clash) {
          assert.ok(result.conflicts[0]!.localText.includes(localText));
          assert.ok(result.conflicts[0]!.remoteText.includes(remoteText));
          assert.ok(result.conflictCopyBody?.includes(remoteText));
        }
        assert.ok(result.body.includes(localText));
      }),
      RUNS,
    );
  });

  test('the list levels and empty texts of real reads do not disturb a merge with nothing changed', () => {
    fc.assert(
      fc.property(documentParts, fc.boolean(), fc.boolean(), (parts, emptyListText, levelsFromZero) => {
        const base = join(parts);
        const remoteBase = simulateServiceRead(base, { emptyListText, levelsFromZero, tableCells: true });
        const result = merge3({ base, remoteBase, remote: remoteBase, local: base });
        assert.equal(result.body, base);
        assert.equal(align(base, remoteBase).map.filter((j) => j === null).length, 0);
      }),
      RUNS,
    );
  });
});
