import { readFile, writeFile } from 'node:fs/promises';
import { gateProxy, type Passing } from '../helpers/gate-proxy.js';
import { tokensIn } from '../model/tokens.js';
import type { Machine } from '../model/world.js';

/**
 * The reads and overwrites of document bodies each machine made, and the colleague's saves, in the one order
 * this process saw them: a proxy in front of the emulator for each machine (its config's `service.baseUrl`)
 * notes each call as it goes on to the service and as its answer comes back, and the colleague's saves (made
 * here, between two of the service's answers) take their place in the same count.
 *
 * It answers one question of a colleague's words found nowhere at the end: did a machine write over them
 * without having read them? The service has no conditional write, so a machine that read a document, then
 * wrote it after a colleague's save, replaces that save with nothing to tell it so: a stated window (kbsync
 * notices a lost update among its own writers, which keep what they wrote, not one of the web editor's).
 * Such a loss is counted apart; any other is a finding.
 */

/** One call of a machine on a document: its place in the order when it went on to the service, and when its answer came back. */
type Call = {
  readonly machine: string;
  readonly kind: 'read' | 'overwrite' | 'delete';
  /** The document's body id, or for a delete its creation nodeId (the only id the service deletes by). */
  readonly docKey: string;
  readonly sent: number;
  /** Undefined while no answer came (a dropped answer: the write may have landed all the same). */
  answered?: number;
  /** The answer's status (a write refused changed nothing). */
  status?: number;
  /** The tokens the body sent (an overwrite) or the answer showed (a read). */
  tokens: ReadonlySet<string>;
};

/** A colleague's save: where it stands in the order, the document (both its ids) and the tokens it wrote. */
type Save = { readonly at: number; readonly docKey: string; readonly nodeId: string; readonly tokens: ReadonlySet<string> };

const BODY_CALL = /^\/v1\.0\/doc\/suites\/documents\/([^/?]+)\/(blocks|overwriteContent)(?:\?|$)/;
const DELETE_CALL = /^\/v1\.0\/doc\/workspaces\/[^/?]+\/docs\/([^/?]+)(?:\?|$)/;

/** The call a request is, if it reads, overwrites or deletes a document. */
function callOf(method: string, path: string): Pick<Call, 'kind' | 'docKey'> | undefined {
  const body = BODY_CALL.exec(path);
  if (body && method === 'GET' && body[2] === 'blocks') return { kind: 'read', docKey: decodeURIComponent(body[1] ?? '') };
  if (body && method === 'POST' && body[2] === 'overwriteContent') return { kind: 'overwrite', docKey: decodeURIComponent(body[1] ?? '') };
  const deleted = DELETE_CALL.exec(path);
  return deleted && method === 'DELETE' ? { kind: 'delete', docKey: decodeURIComponent(deleted[1] ?? '') } : undefined;
}

export class CallLog {
  #order = 0;
  readonly #calls: Call[] = [];
  readonly #saves: Save[] = [];
  readonly #closers: (() => Promise<void>)[] = [];

  /**
   * Puts a proxy in front of `target` for the machine, and points its config at it: its daemons and every
   * command run with its config (resolve, the last sync) go through it.
   */
  async route(machine: Machine, target: string): Promise<void> {
    const pending = new WeakMap<Passing, Call>();
    const proxy = await gateProxy(target, {
      before: (request) => {
        const what = callOf(request.method, request.path);
        if (!what) return;
        const call: Call = { machine: machine.name, ...what, sent: ++this.#order, tokens: new Set(tokensIn(request.body)) };
        this.#calls.push(call);
        pending.set(request, call);
      },
      after: (request, status, answer) => {
        const call = pending.get(request);
        if (!call) return;
        call.answered = ++this.#order;
        call.status = status;
        if (call.kind === 'read') call.tokens = new Set(tokensIn(answer));
      },
    });
    this.#closers.push(proxy.close);
    const config = JSON.parse(await readFile(machine.settings.configPath, 'utf8')) as { service: { baseUrl: string } };
    config.service.baseUrl = proxy.baseUrl;
    await writeFile(machine.settings.configPath, JSON.stringify(config, null, 2));
  }

  /** The colleague saved the document (its body id and creation nodeId), writing these tokens: said at the moment of the save. */
  saved(doc: { readonly dentryUuid: string; readonly creationNodeId: string }, tokens: readonly string[]): void {
    this.#saves.push({ at: ++this.#order, docKey: doc.dentryUuid, nodeId: doc.creationNodeId, tokens: new Set(tokens) });
  }

  /**
   * A colleague's token, found nowhere at the end, was written over by a machine that had not read it: the
   * first write to land after the save that dropped it (an overwrite of its document without it, or the
   * document's delete: a move makes a new one and deletes the old) came from a machine whose last read of the
   * document before that write was sent before the save and did not show the token.
   */
  overwrittenUnread(token: string): boolean {
    const save = this.#saves.find((s) => s.tokens.has(token));
    if (!save) return false;
    const drops = (c: Call): boolean => (c.kind === 'overwrite' && c.docKey === save.docKey && !c.tokens.has(token)) || (c.kind === 'delete' && c.docKey === save.nodeId);
    // Writes land in the order the service answers them; one whose answer was lost may have landed at any time since.
    const landedAfter = this.#calls
      .filter((c) => drops(c) && (c.status === undefined || c.status === 200) && (c.answered ?? Infinity) > save.at)
      .sort((a, b) => (a.answered ?? Infinity) - (b.answered ?? Infinity));
    const dropped = landedAfter[0];
    if (!dropped) return false;
    const read = this.#calls.filter((c) => c.kind === 'read' && c.status === 200 && c.machine === dropped.machine && c.docKey === save.docKey && c.sent < dropped.sent).at(-1);
    return read !== undefined && read.sent < save.at && !read.tokens.has(token);
  }

  async close(): Promise<void> {
    await Promise.all(this.#closers.map((close) => close()));
  }
}
