import type { Command } from 'commander';
import { InputError, KbsyncError } from '../../errors.js';
import type { CliCommand } from '../command.js';
import { waitForStopSignal } from '../stop-signal.js';
// Types only: the emulator itself is loaded lazily inside the action, so the daemon never loads it.
import type { EmulatorOptions, EmulatorSeed } from '../../emulator/index.js';
import { terminal } from '../../terminal.js';

type RawOptions = {
  readonly host: string;
  readonly port: string;
  readonly state?: string;
  readonly rateLimit: string;
  readonly faults?: string;
  readonly seed?: string;
  readonly json?: boolean;
};

function integer(option: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new InputError('EMULATOR_BAD_OPTION', `${option} must be an integer from ${min} to ${max}, got '${raw}'.`, { hint: 'See kbsync emulator --help.' });
  }
  return value;
}

function toOptions(raw: RawOptions): EmulatorOptions {
  return {
    host: raw.host,
    port: integer('--port', raw.port, 0, 65535),
    rateLimit: integer('--rate-limit', raw.rateLimit, 0, 1_000_000),
    ...(raw.state === undefined ? {} : { statePath: raw.state }),
    ...(raw.faults === undefined ? {} : { faults: raw.faults }),
    ...(raw.seed === undefined ? {} : { seed: integer('--seed', raw.seed, 0, 2 ** 31 - 1) }),
  };
}

function describe(seed: EmulatorSeed, statePath: string | undefined): string[] {
  return [
    `kbsync emulator listening on ${seed.baseUrl}`,
    `  token header:    ${seed.tokenHeader}`,
    `  token:           ${seed.token}`,
    `  read-only token: ${seed.readOnlyToken}`,
    `  operatorId:      ${seed.operatorId}  (the user's unionId)`,
    `  userId:          ${seed.userId}  (for members only; NOT valid as operatorId)`,
    `  other user:      ${seed.otherUser.name}: unionId ${seed.otherUser.unionId}, userId ${seed.otherUser.userId}`,
    `  workspaceId:     ${seed.workspaceId}`,
    `  rootNodeId:      ${seed.rootNodeId}`,
    `  workspace url:   ${seed.workspaceUrl}`,
    `  state:           ${statePath ?? 'in memory (lost when the emulator stops)'}`,
    `  admin:           ${seed.baseUrl}/_emulator/state`,
    'Stop with Ctrl+C.',
  ];
}

async function run(raw: RawOptions): Promise<void> {
  const options = toOptions(raw);
  const { startEmulator } = await import('../../emulator/index.js');
  let emulator;
  try {
    emulator = await startEmulator(options);
  } catch (error) {
    if (error instanceof KbsyncError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
      throw new InputError('EMULATOR_CANNOT_LISTEN', `The emulator cannot listen on ${options.host}:${options.port} (${code}).`, {
        hint: 'Pick another --port (0 chooses a free one) or --host.',
        cause: error,
      });
    }
    throw error;
  }
  terminal.out(...(raw.json ? [JSON.stringify(emulator.seed)] : describe(emulator.seed, options.statePath)));
  await waitForStopSignal();
  await emulator.close();
}

export const emulatorCommand: CliCommand = {
  name: 'emulator',
  register(program: Command): void {
    program
      .command('emulator')
      .description('Run the local service emulator (for tests, demos and trying kbsync without a real knowledge base).')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--port <n>', 'port to listen on; 0 picks a free port', '0')
      .option('--state <file>', 'keep the emulated service in this SQLite file (survives restarts); default in memory')
      .option('--rate-limit <n>', 'requests per second per endpoint; 0 disables limiting', '20')
      .option('--faults <spec>', "inject faults, e.g. 'latency=200,5xx=0.1,reset=0.05,429=0.3,drop=1,qps403=0.2,listFailPage=2,only=createDocument|listNodes,seed=7'")
      .option('--seed <n>', 'seed for reproducible ids, tokens and fault decisions')
      .option('--json', 'print the seed (base URL, tokens, ids) as one JSON line')
      .addHelpText(
        'after',
        `
Examples:
  $ kbsync emulator --port 8787
  $ kbsync emulator --port 0 --json                 # one JSON line: baseUrl, token, operatorId, workspaceId, ...
  $ kbsync emulator --state ./emulator.db --seed 1  # same tokens and ids after a restart
  $ kbsync emulator --faults 'latency=300,5xx=0.1,only=createDocument'
  $ kbsync emulator --rate-limit 0                  # no throttling

Admin (JSON, outside the service paths): GET /_emulator/state, GET /_emulator/calls, PUT /_emulator/faults,
POST /_emulator/documents, POST /_emulator/documents/<dentryUuid>/edit; by IP address or localhost only, and
all but GET with content-type: application/json. Stops cleanly on Ctrl+C or SIGTERM.`,
      )
      .action(run);
  },
};
