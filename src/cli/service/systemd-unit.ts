import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError } from '../../errors.js';
import { oneLine } from '../../printable.js';
import type { ServiceSpec } from './spec.js';

/** The first line of every unit install writes: uninstall removes only files that carry it. */
export const MARK = '# Written by `kbsync service install`';

/**
 * One word of a unit setting (systemd.syntax(7), "Quoting"): quoted when it holds a space, a quote or a
 * backslash, with systemd's specifiers (`%`) escaped and, in ExecStart's arguments (`exec`), its variable
 * expansions (`$`) too, so a path is taken as written. Control characters never get here (spec.ts).
 */
export function unitWord(word: string, options: { readonly exec?: boolean } = {}): string {
  const specifiers = word.replace(/%/g, '%%');
  const escaped = options.exec ? specifiers.replace(/\$/g, '$$$$') : specifiers;
  return /[\s"'\\]/.test(escaped) ? `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : escaped;
}

/**
 * The program ExecStart runs: systemd expands no variable in it (`$$` would stay two dollars) and runs no
 * program whose path holds a quote or a backslash ("Executable name contains special characters"), so
 * such a path is refused before anything is written.
 */
function unitProgram(program: string): string {
  if (/["'\\]/.test(program)) {
    throw new InputError('SERVICE_PATH_UNSAFE', `systemd runs no program whose path holds a quote or a backslash, and node is at ${oneLine(program)}.`, {
      hint: 'Install node (or link it) at a path without one, run `kbsync service install` with that node, and it writes the unit for it. Nothing was written.',
    });
  }
  return unitWord(program);
}

/**
 * A path in a setting that takes the rest of its line as one path (WorkingDirectory=): as written, its
 * specifiers escaped. systemd strips a line's trailing spaces and reads a trailing backslash as "continued
 * on the next line" (which would swallow the line after it): a path ending in either gets a trailing `/`,
 * which systemd drops when it reads the path.
 */
const unitPath = (value: string): string => `${value.replace(/%/g, '%%')}${/[\s\\]$/.test(value) ? '/' : ''}`;

/** Documentation= takes URLs separated by spaces: the README's as one file: URL, percent-encoded, then its `%` escaped. */
const unitUrl = (file: string): string => pathToFileURL(file).href.replace(/%/g, '%%');

/**
 * The systemd user unit for one folder: absolute paths to node and kbsync (the service has no login
 * shell's PATH), the config and root filled in, the token read from a private file. A configuration
 * error (exit 2: a missing token, a bad config) or another daemon for the folder (exit 3) is not
 * restarted: the unit shows "failed" with the reason in its log, instead of "active" while failing.
 */
export function systemdUnit(spec: ServiceSpec): string {
  const exec = [unitProgram(spec.node), ...[spec.entry, 'watch', '--config', spec.configPath].map((word) => unitWord(word, { exec: true }))].join(' ');
  return `${MARK} for ${spec.root}; \`kbsync service uninstall\` removes it.
# Logs: journalctl --user -u ${spec.name} -f    State: kbsync service status
[Unit]
Description=kbsync: keep ${spec.root.replace(/%/g, '%%')} and its knowledge base in step
Documentation=${unitUrl(spec.readme)}
After=network-online.target
Wants=network-online.target
# Restarts that keep failing stop after five in five minutes: the unit then shows "failed".
StartLimitIntervalSec=300
StartLimitBurst=5

[Service]
Type=simple
WorkingDirectory=${unitPath(path.dirname(spec.configPath))}
ExecStart=${exec}
ExecReload=/bin/kill -HUP $MAINPID
${spec.tokenFile ? `# The token, in a file only you can read (chmod 600).\nEnvironment=${unitWord(`KBSYNC_SERVICE_TOKEN_FILE=${spec.tokenFile}`)}\n` : ''}${spec.keyFile ? `# The team's state key, in a file only you can read (chmod 600).\nEnvironment=${unitWord(`KBSYNC_STATE_KEY_FILE=${spec.keyFile}`)}\n` : ''}Restart=on-failure
RestartSec=10s
# Exit 2 (a bad config, a missing token) and 3 (another kbsync for this folder, a state key that is not the team's) cannot be fixed by a restart.
RestartPreventExitStatus=2 3
# kbsync finishes its current work on SIGTERM; give it time before SIGKILL.
TimeoutStopSec=30s
KillSignal=SIGTERM
StandardOutput=journal
StandardError=journal

# Hardening: kbsync needs the network, its folder and nothing else.
NoNewPrivileges=yes
PrivateTmp=yes
ProtectSystem=strict
ProtectHome=read-only
ReadWritePaths=${spec.writable.map((dir) => unitWord(dir)).join(' ')}
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictSUIDSGID=yes
RestrictRealtime=yes
LockPersonality=yes
SystemCallArchitectures=native
UMask=0077

[Install]
WantedBy=default.target
`;
}
