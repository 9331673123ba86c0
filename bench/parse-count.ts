/**
 * Markdown parses per document in one push of N realistic ~3 KB notes, run in process against an emulator
 * with its limit off: `node --import tsx bench/parse-count.ts [N]`. The emulator's own parser is not counted.
 */
import { mkdtemp, writeFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../src/emulator/index.js';
import { openSession, openSyncLedger, syncOptionsOf } from '../src/cli/session.js';
import { runSync } from '../src/sync/engine.js';
import { parseCounts } from '../src/markdown/parse.js';
import { realisticNoteText } from './lib/tree.js';
const N = Number(process.argv[2] ?? 50);
const RATE = Number(process.env['EM_RATE'] ?? 0);
const em = await startEmulator({ rateLimit: RATE });
const dir = await mkdtemp(join(tmpdir(), 'kbsync-parse-'));
await mkdir(join(dir, 'notes', 'area'), { recursive: true });
for (let i = 0; i < N; i++) await writeFile(join(dir, 'notes', 'area', `note-${String(i).padStart(3, '0')}.md`), realisticNoteText(`area/note-${String(i).padStart(3, '0')}.md`));
await writeFile(join(dir, 'sync.config.json'), JSON.stringify({ root: './notes', workspaceId: em.seed.workspaceId, service: { baseUrl: em.seed.baseUrl, operatorId: em.seed.operatorId, token: { env: 'KBSYNC_TOKEN' } } }));
process.env['KBSYNC_TOKEN'] = em.seed.token;
const session = await openSession({ config: join(dir, 'sync.config.json'), quiet: true, cwd: dir });
const ledger = openSyncLedger(session);
const cpu0 = process.cpuUsage();
const t = performance.now();
const report = await runSync({ client: session.client, ledger, logger: session.logger }, syncOptionsOf(session.config, { mode: 'push', dryRun: false, force: false }));
const cpu = process.cpuUsage(cpu0);
console.log(`${N} docs: ${report.planned.length} planned; parses ${parseCounts.parsed} (${(parseCounts.parsed / N).toFixed(2)}/doc), reused ${parseCounts.reused}; wall ${(performance.now() - t).toFixed(0)} ms; CPU (this process, emulator included) ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);
ledger.close();
await em.close();
await rm(dir, { recursive: true, force: true });
