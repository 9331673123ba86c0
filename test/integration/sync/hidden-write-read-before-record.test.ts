import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onceAt } from '../../helpers/gate-proxy.js';
import type { SyncFixture } from '../../helpers/sync-fixture.js';
import { minuteByMinute, publishedOnBoth, reported, saidIn, withGatedPair, type SyncReport } from '../../helpers/workstation-pair.js';

/**
 * Soak seed 723 (keyed, issue 44): machine B changed a code block's fence info (reads show code as `unknown`, so
 * the page read the same) and wrote it. A read the page before B's record of that write came, found its time past
 * B's previous record's minute with every block the same, and said HIDDEN_EDIT; a colleague then changed words
 * in the very same minute. B's record came, of a version made from the one A had, on the very blocks A saw: the
 * hidden change was B's own. A kept the hold all the same (only a record of A's very text explained a hidden edit),
 * held its next edits, and published its version as holding a hidden edit, so B took it in saying so too. And A
 * need not have said it: with nothing to send, a time that moved a moment ago waits for the record that may explain it.
 */
const PAGE = '# Argparse\n\nCLI arguments parser for node.\n\nExample:\n\n```javascript\nvar parser = new ArgumentParser();\n```\n\nThe action says what to do.\n';
const REWORDED = PAGE.replace('parser for node.', 'parser for node.js.');
const FENCED = REWORDED.replace('```javascript', '```javascript title=example');

type Raced = {
  readonly a: SyncFixture;
  readonly b: SyncFixture;
  readonly sync: (f: SyncFixture) => Promise<SyncReport>;
  readonly tick: () => void;
  /** The colleague's edit of the document as it is now (the emulator's Markdown). */
  readonly colleague: (edit: (markdown: string) => string) => void;
  /** What A's run in the window said. */
  readonly between: SyncReport;
};

/**
 * PAGE on both; B publishes a visible edit (write and record), then writes FENCED a minute later, and its record of
 * that write waits while A (the open machine) syncs and `inWindow` runs (a colleague's save in that minute).
 */
async function readBeforeRecord(
  keyless: boolean,
  inWindow: (raced: Omit<Raced, 'between'>) => void,
  fn: (raced: Raced) => Promise<void>,
  aEdit?: (text: string) => string,
): Promise<void> {
  const gate = onceAt((request) => request.path.includes('appendText'));
  await withGatedPair(keyless, gate.hooks, async (em, a, b) => {
    const { sync, tick } = minuteByMinute(em);
    await publishedOnBoth(em, a, b, { 'argparse.md': PAGE });
    const page = () => a.remoteDoc('Argparse');
    const colleague = (edit: (markdown: string) => string) => em.admin.editDocument(page().dentryUuid, edit(page().markdown ?? ''));
    await b.write('argparse.md', REWORDED);
    await sync(b);
    await b.write('argparse.md', FENCED);
    let between: SyncReport | undefined;
    gate.arm(async () => {
      if (aEdit) await a.write('argparse.md', aEdit(await a.read('argparse.md')));
      between = await reported(a);
      inWindow({ a, b, sync, tick, colleague });
    });
    await sync(b);
    assert.ok(gate.fired && between, "A read B's write before B's record of it came");
    assert.doesNotMatch(await a.read('argparse.md'), /title=example/, "A's read could not show B's fence info");
    await fn({ a, b, sync, tick, colleague, between });
  });
}

/** What A and B say over two rounds once B's record is there. */
async function roundsAfter(raced: Pick<Raced, 'a' | 'b' | 'sync'>): Promise<string[]> {
  const said: string[] = [];
  for (const [name, f] of [['A', raced.a], ['B', raced.b], ['A', raced.a], ['B', raced.b]] as const) {
    said.push(...saidIn(await raced.sync(f)).map((code) => `${name} ${code}`));
  }
  return said;
}

const heldOn = async (f: SyncFixture): Promise<string> => (await f.cli(['resolve'])).stdout;

for (const keyless of [false, true]) {
  const team = keyless ? 'keyless' : 'keyed';
  test(`another machine's hidden write read before its record, a colleague's words in its minute: once the record comes, nothing is held (${team})`, async () => {
    const WORDS = (md: string) => md.replace('The action says what to do.', 'The action says what to do with them.');
    await readBeforeRecord(
      keyless,
      ({ colleague }) => colleague(WORDS),
      async (raced) => {
        assert.deepEqual(saidIn(raced.between), [], "A, with nothing to send, says nothing of a time B's record may yet explain");
        const said = await roundsAfter(raced);
        assert.ok(!said.some((code) => code.endsWith('HIDDEN_EDIT')), `no hidden edit is said once B's record explains the time: ${said.join(', ')}`);
        const expected = WORDS(FENCED);
        assert.equal(await raced.b.read('argparse.md'), expected, "B takes the colleague's words");
        assert.equal(await raced.a.read('argparse.md'), expected, "A takes B's fence info and the colleague's words");
        assert.doesNotMatch(await heldOn(raced.a), /HIDDEN_EDIT/, 'A holds no hidden edit');
        assert.doesNotMatch(await heldOn(raced.b), /HIDDEN_EDIT/, 'B holds no hidden edit');
      },
    );
  });
}

test("…a colleague's edit inside the code a minute after B's write is still a hidden edit: said, the next edit held, the code stands", async () => {
  await readBeforeRecord(
    false,
    () => undefined,
    async (raced) => {
      raced.tick();
      raced.colleague((md) => md.replace('new ArgumentParser()', 'new ArgumentParser({ addHelp: true })'));
      const said = await roundsAfter(raced);
      assert.ok(said.includes('A HIDDEN_EDIT'), `the colleague's edit inside code is said: ${said.join(', ')}`);
      await raced.a.write('argparse.md', (await raced.a.read('argparse.md')).replace('Example:', 'For example:'));
      assert.deepEqual(saidIn(await raced.sync(raced.a)), ['HIDDEN_EDIT'], "A's next edit is held");
      assert.match(raced.a.remoteDoc('Argparse').markdown ?? '', /addHelp: true/, "the colleague's code stands");
    },
  );
});

test("…with an edit of A's own to send in that window: the edit waits for the record too (JUST_EDITED, no HIDDEN_EDIT), then as any edit over a colleague's words on a page with code", async () => {
  const WORDS = (md: string) => md.replace('parser for node.js.', 'parser for node.js, and fast.');
  const OWN = (md: string) => md.replace('The action says what to do.', 'The action says what to do. Ask A.');
  await readBeforeRecord(
    false,
    ({ colleague }) => colleague(WORDS),
    async (raced) => {
      assert.deepEqual(saidIn(raced.between), ['JUST_EDITED'], "A, with an edit to send, waits in the window: no hidden edit said of B's write (convergence soak 762)");
      const said = await roundsAfter(raced);
      assert.deepEqual([...new Set(said)], ['A FLATTEN'], "once B's record explains the time, A's edit waits for the colleague's words alone (FLATTEN)");
      assert.equal(await raced.a.read('argparse.md'), OWN(WORDS(FENCED)), "A keeps its edit and takes B's fence info and the colleague's words");
      assert.equal(await raced.b.read('argparse.md'), WORDS(FENCED), "B takes the colleague's words and says nothing");
      assert.equal(raced.a.remoteDoc('Argparse').markdown, WORDS(FENCED), "the document keeps B's fence info and the colleague's words");
      const held = await heldOn(raced.a);
      assert.match(held, /held \(FLATTEN\)/, held);
      assert.doesNotMatch(held, /HIDDEN_EDIT/, 'A holds no hidden edit');
    },
    OWN,
  );
});
