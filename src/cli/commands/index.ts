import type { CliCommand } from '../command.js';
import { syncCommand } from './sync.js';
import { emulatorCommand } from './emulator.js';
import { watchCommand } from './watch.js';
import { initCommand } from './init.js';
import { workspacesCommand } from './workspaces.js';
import { statusCommand } from './status.js';
import { diffCommand } from './diff.js';
import { searchCommand } from './search.js';
import { cloneCommand } from './clone.js';
import { doctorCommand } from './doctor.js';
import { demoCommand } from './demo.js';
import { stateCommand } from './state.js';
import { resolveCommand } from './resolve.js';
import { serviceCommand } from './service.js';

/** The command table, in the order `kbsync --help` lists them. */
export const commands: readonly CliCommand[] = [initCommand, syncCommand, watchCommand, statusCommand, diffCommand, resolveCommand, searchCommand, stateCommand, cloneCommand, workspacesCommand, doctorCommand, serviceCommand, demoCommand, emulatorCommand];
