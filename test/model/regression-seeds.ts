/**
 * Seeds of the model test that once broke a promise, with what they found: `npm test` runs each past the
 * step it broke at. Add one whenever `npm run torture` finds a failure and the fix lands. Those found before the
 * colleague moved and renamed documents replay without it (`colleagueMoves: false`), as they were found;
 * `keyed`: the team has a state key (`npm run torture` gives odd seeds one); `together`: found with two
 * machines' runs now and then at once (`npm run torture -- --plain-pairs`); `races`: with things happening between
 * their calls too (`npm run torture -- --unheld`, issue 44); `holds`: with a run's records held while another
 * machine edits and syncs, and a new page's first body held (`npm run torture`); `vault`: a team of note vaults
 * (`npm run torture -- --vault`).
 */
export const REGRESSION_SEEDS: readonly { readonly seed: number; readonly steps: number; readonly found: string; readonly colleagueMoves?: false; readonly keyed?: true; readonly together?: true; readonly races?: true; readonly holds?: true; readonly vault?: true }[] = [
  { seed: 2, steps: 20, found: 'a keyless team: every machine republished the records it could not take creation ids from', colleagueMoves: false },
  { seed: 5, steps: 26, found: "a moved file's new document made from the plain reading, without another machine's link address; two writes in one second ordered by the Date header's clock", colleagueMoves: false },
  { seed: 6, steps: 26, found: 'a keyless team: a rename on one machine never followed on the other', colleagueMoves: false },
  { seed: 47, steps: 12, found: 'two machines moved one file at once: the second re-created the document the first had replaced', colleagueMoves: false },
  { seed: 139, steps: 14, found: 'a held file moved: taken for a delete and a create, its web-editor formatting deleted with the old document', colleagueMoves: false },
  { seed: 3031, steps: 48, found: "a pull of another machine's write in the minute of the last record left the time unknown: a colleague's later edit inside code was overwritten", colleagueMoves: false },
  { seed: 5008, steps: 25, found: "a merge put this machine's first line back over another machine's: the files differed for good", colleagueMoves: false },
  { seed: 10003, steps: 17, found: 'a keyless CI job made a second document of a document a colleague renamed' },
  { seed: 10021, steps: 51, found: "a document a colleague moved twice: a machine that followed the second move went back to the first, on another machine's older record", keyed: true },
  { seed: 50057, steps: 25, found: 'a file moved to the folder its document had just been moved to: the move made a second document', keyed: true },
  { seed: 100106, steps: 11, found: "a colleague's code edit after another machine had followed the colleague's move: taken for the move, and overwritten by this machine's merge" },
  { seed: 100020, steps: 50, found: "a file restored over its deletion from this machine's own older text: another machine's rewrapped line never reached it" },
  { seed: 200004, steps: 16, found: "a pull of another machine's write in the minute of this machine's own left the time unknown, for want of asking the document again: a colleague's HTML comment was overwritten" },
  {
    seed: 3,
    steps: 40,
    found: "a note made in the web editor, pulled as a plain reading on both machines: one machine's forced push of a comment and a paragraph, its version dropped by the other for the placeholders both files held, so the comment never reached it",
    keyed: true,
    vault: true,
  },
  { seed: 2, steps: 25, found: 'an autolink typed into a comment block: rightly never sent, but the model demanded it in the document', together: true, vault: true },
  { seed: 4004, steps: 8, found: "a colleague's code edit between a two-way run's listing and its read of the document: read the same, and the run's push, decided on the listing's older time, overwrote it", together: true, races: true },
  { seed: 4008, steps: 14, found: "the same race as 4004 (a colleague's code line saved after the listing, before the read), the push overwrote it", together: true, races: true },
  { seed: 4011, steps: 20, found: "a machine's forced push of a code edit, its front matter carried across a plain reading: the other machine's exact record of the same blocks was taken to say more, and a CI run of its files wrote the old code back", keyed: true, together: true, races: true },
  { seed: 4029, steps: 25, found: "words a colleague saved, in the minute of their move of the document, between a run's read and its look at the node: the stated window, which the oracle took the look for having seen", keyed: true, together: true, races: true },
  { seed: 4001, steps: 23, found: "a file edited here that another machine renamed: the run that followed the rename said it pulled, and the edit stayed in the file, unsent and unsaid", keyed: true, together: true, races: true },
  { seed: 1015, steps: 25, found: "a file moved a moment after a colleague's code edit: the body waited for a record that could explain the time, the move did not, and deleted the edit with the old document", keyed: true, together: true },
  { seed: 6018, steps: 37, found: "a file moved as a colleague saved a code line in its document: the move decided on the listing's time, from before the save, and deleted the line with the old document", races: true, together: true },
  { seed: 6002, steps: 25, found: "front matter added beside a colleague's new code block and words: the machine that merged them published its version with the code's placeholder, which the other dropped (as one standing where it had the code) and took the plain reading without the front matter", races: true, together: true },
  { seed: 5993, steps: 12, found: "a document a colleague moved, then written (a link's address) by another machine in the minute after this one's listing: this one's look before its write saw the later time but took it for the move, and its push overwrote the address, left in one file unsaid", keyed: true, races: true, together: true },
  { seed: 6030, steps: 8, found: "a colleague's fence info saved between a run's listing and its read of the document: the push of the file's edit, decided on the listing's time, overwrote it", races: true, together: true },
  {
    seed: 6011,
    steps: 13,
    found: "a colleague's save one machine pulled between the other's read and its stale write: each took the other's version, agreed in the same moment, for the latest, and the save was dropped everywhere (the race itself: save-pulled-before-stale-write.test)",
    keyed: true,
    together: true,
    races: true,
  },
  { seed: 8003, steps: 25, found: "a note vault's forced run over a file holding a placeholder: the push left the placeholder out with the comments, the colleague's code block it stood for went, and the other machine, refusing that version for its placeholder, kept a file of its own", keyed: true, together: true, races: true, vault: true },
  { seed: 8508, steps: 10, found: "a keyless CI run after the workstation left a document a colleague had just renamed and given a code block for a later run (its two minutes' wait for a record): README's stated limit of a team without a key, a second document, which the model's CI step demanded it not make", together: true },
  { seed: 8020, steps: 12, found: "a keyless team's move of a file with an edit, its document kept in place (its delete unverified): the overwrite, decided on the listing's time, went over a colleague's code line saved before the read, never asked again", together: true, races: true, vault: true },
  {
    seed: 8506,
    steps: 26,
    found: "a write landed after another machine's read of the version it was made from, whose record (its own front matter added) came later and stood as the page's latest: that machine's plain reading of the write clashed with the write itself (a conflict), the writer never took the front matter, and the files differed for good (as one decision: body-fork.test)",
    together: true,
  },
  {
    seed: 6034,
    steps: 51,
    found: "a machine stopped after its write of a code line and bold words published its record a minute after the other had read that write plainly: the reading, agreed later, stood over the exact record of the very blocks it read, and the code line stayed on the writer alone (as one decision: body-published.test)",
    together: true,
    races: true,
  },
  { seed: 8024, steps: 40, found: "a note vault's file pulled from another machine's record, unread: its placeholders read as comments, the blocks recorded for it lacked the code they stood for, and a colleague's new code block merged over them wrote every placeholder twice", together: true, races: true, vault: true },
  { seed: 9006, steps: 25, found: "a word made bold after a link by a machine stopped after its first body write: the other machine read the write before its record came and took it in plainly (into the link's label), and, the writer's exact record of the same blocks taken for a later write of another body, never took the writer's version: the files differed for good", together: true, races: true },
  { seed: 718, steps: 22, found: "a machine added front matter, published it, then took a colleague's edit in plainly, keeping it (`hc`): the other machine, still at the page as created, took that version for a reading of its own write and dropped the front matter, and the files differed for good (as one decision: body-published.test; seed 8498 the same)", together: true, races: true },
  { seed: 8498, steps: 40, found: "a machine's front matter, published before its plain reading of a colleague's edit, dropped by the other machine, at an older version, as a front matter that reading could not see (seed 718's cause, with CRLF)", together: true, races: true },
  { seed: 300003, steps: 19, found: "a colleague's words and new code block, read in the next minute as the stated two minutes' wait, a minute passing before the run ended: the model judged the wait by the run's last minute and took it for a loss", keyed: true, together: true, races: true },
  { seed: 11006, steps: 40, found: "two machines' writes of one page in one moment, each a link's address (reads the same): the later writer took the earlier one's record, agreed in the same second, for the page's, and dropped its own address from its file (as one decision: hidden-writes-same-moment.test)", together: true, races: true },
  {
    seed: 7112,
    steps: 60,
    found: "a table cell published by a forced run over a file whose front matter was carried across a plain reading, made from the other machine's exact record of the same blocks (a table reads the same): the publish step and the fold took that write for a reading the exact record says more than, its record was never published, and the other machine kept the old cell for good",
    keyed: true,
    together: true,
    races: true,
    holds: true,
  },
  { seed: 7421, steps: 17, found: "another machine's append, read only after a colleague renamed the document: its record, at the path a rename keeps, was taken to say the rename came first, and the later time was said HIDDEN_EDIT of a page nobody had edited beyond words", keyed: true, together: true, races: true, holds: true },
  { seed: 7434, steps: 25, found: "a new page pulled from the plain reading, its reader's records held while the page's maker wrote it again: the reading, of an earlier minute, stood over the maker's exact record, the reader took the write in plainly too, and the files differed for good", keyed: true, together: true, races: true, holds: true },
  { seed: 7337, steps: 25, found: "a link's address written by one machine between the other's read and its write of a new paragraph, which replaced it, that machine's record held: the first read the write plainly before the record came, keeping its address, and the record, folded over that reading, was taken for the version after it; taken in whole, the address was lost everywhere (as one race: reading-between-branches.test)", keyed: true, together: true, races: true, holds: true },
];
