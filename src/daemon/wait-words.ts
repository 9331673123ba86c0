import { shellQuote } from '../shell/quote.js';
import type { WaitRecord } from './activity.js';
import type { DelayNews, Removal, Waiting } from './delete-delays.js';

type Settings = { readonly deleteDelayMinutes: number; readonly checkoutDelayMinutes: number };

/** Paths named in one line: the first few, then how many more (a checkout can remove thousands). */
const NAMED = 10;

const two = (n: number): string => String(n).padStart(2, '0');

/** A time in a log line, as a person reads it: `14:05` (local time) on the same day as `now`, else with its date. */
export function clockTime(at: number, now: number): string {
  const when = new Date(at);
  const time = `${two(when.getHours())}:${two(when.getMinutes())}`;
  return when.toDateString() === new Date(now).toDateString() ? time : `${when.getFullYear()}-${two(when.getMonth() + 1)}-${two(when.getDate())} ${time}`;
}

/** `a.md`, `a.md and b.md`, `a.md, b.md and c.md`, `a.md, …, j.md and 40 more`. */
function listed(items: readonly string[]): string {
  const shown = items.slice(0, NAMED);
  const rest = items.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest} more`;
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) ?? ''}`;
}

/** A delete seen for the first time: when its document goes, how to keep it, how to send it now. */
export function deleteLine(wait: Waiting, settings: Settings, now: number): string {
  return (
    `${wait.path}: deleted here; its document is deleted at ${clockTime(wait.dueAt, now)} (after ${settings.deleteDelayMinutes} min, watch.deleteDelayMinutes) ` +
    `unless the file is back by then: restore it to keep the document and its URL, or run \`kbsync resolve --mine ${shellQuote(wait.path)}\` to delete it now`
  );
}

/** A file back where it was before its removal was sent. */
export const backLine = (wait: Removal): string =>
  wait.kind === 'move' ? `${wait.path}: back where it was before its move was carried out; its document (and URL) stays` : `${wait.path}: back before its delete was sent; its document (and URL) stays`;

/** What a checkout (or a burst of files gone at once) brought and holds, until when, and why; `head` names the event. */
export function checkoutLine(head: string, checkout: NonNullable<DelayNews['checkout']>, settings: Settings, now: number): string {
  const gone = checkout.brought.filter((wait) => wait.kind === 'delete').map((wait) => wait.path);
  const moved = checkout.brought.filter((wait) => wait.kind === 'move').map((wait) => `${wait.path} moved to ${wait.to ?? '?'}`);
  const until = `until ${clockTime(checkout.dueAt, now)}, once the ${checkout.burst ? 'folder has stayed so' : 'branch has stayed'} ${settings.checkoutDelayMinutes} min (watch.checkoutDelayMinutes)`;
  const parts: string[] = [];
  if (gone.length > 0) parts.push(checkout.burst ? listed(gone) : `${listed(gone)} ${gone.length === 1 ? 'is' : 'are'} gone with it`);
  if (moved.length > 0) parts.push(`${listed(moved)} (a move makes a new document: the service cannot move one)`);
  const count = gone.length + moved.length;
  const held = count === 0 ? '' : `; ${parts.join('; ')}: ${count === 1 ? 'its document waits' : 'their documents wait'} ${until}`;
  const older = checkout.extended.map((wait) => wait.path);
  const extended = older.length === 0 ? '' : `; ${listed(older)}, from an earlier checkout, ${older.length === 1 ? 'waits' : 'wait'} ${count === 0 ? until : 'until then'} too`;
  if (held === '' && extended === '') return `${head}; no delete or move waits for it`;
  const keeps = count + older.length === 1 ? 'keeps it, with its URL' : 'keeps them, with their URLs';
  return `${head}${held}${extended}. ${checkout.burst ? 'Files that come back' : 'Switching back'} ${keeps}; \`kbsync resolve --mine FILE\` sends one now (\`kbsync resolve\` lists them)`;
}

/** After a restart: what the last daemon kept waiting, which waits again from now, grouped by when it goes. */
export function resumedLine(waits: readonly Waiting[], now: number): string {
  const byTime = new Map<number, string[]>();
  for (const wait of [...waits].sort((a, b) => a.dueAt - b.dueAt)) byTime.set(wait.dueAt, [...(byTime.get(wait.dueAt) ?? []), wait.kind === 'move' ? `${wait.path} (moved to ${wait.to ?? '?'})` : wait.path]);
  const groups = [...byTime].map(([at, paths]) => `${listed(paths)} until ${clockTime(at, now)}`);
  return `what the last kbsync watch here kept waiting waits again from now (a restart starts each wait anew): ${groups.join('; ')}; a file back by then keeps its document`;
}

/** A removal that waits, as `kbsync status` and `kbsync resolve` say it beside the running daemon: what goes, and when. */
export function waitSentence(wait: WaitRecord, now: number): string {
  return wait.kind === 'move'
    ? `kbsync watch moves its document to ${wait.to ?? 'the new folder'} (a new document; this one is deleted) at ${clockTime(wait.dueAt, now)}, unless the file moves back first`
    : `kbsync watch deletes its document at ${clockTime(wait.dueAt, now)}, unless the file is back by then`;
}
