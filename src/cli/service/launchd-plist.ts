import path from 'node:path';
import { refuseControlIn, type ServiceSpec } from './spec.js';

/** Text in an element: XML's own escapes. Control characters, which XML 1.0 cannot hold at all, never get here (spec.ts). */
const xml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Text in a comment, where no escape is read and `--` may not appear (a plist holding it does not parse):
 * each hyphen that follows a hyphen is shown as `\u002d`, as kbsync shows characters it will not print.
 */
const xmlComment = (text: string): string => text.replace(/(?<=-)-/g, '\\u002d');

/** The comment every agent install writes carries: uninstall removes only files that hold it. */
export const PLIST_MARK = 'Written by kbsync service install';

/**
 * The launchd agent for one folder (macOS): the same command as the systemd unit, started at login and
 * restarted when it fails, at most once a minute (launchd has no "do not restart on exit 2"; a config error
 * is logged every minute until fixed). Logs go to files beside the agent's state.
 */
export function launchdPlist(spec: ServiceSpec, label: string, logFile: string): string {
  refuseControlIn('the log file', logFile);
  const args = [spec.node, spec.entry, 'watch', '--config', spec.configPath].map((arg) => `    <string>${xml(arg)}</string>`).join('\n');
  const variables = [...(spec.tokenFile ? [['KBSYNC_SERVICE_TOKEN_FILE', spec.tokenFile]] : []), ...(spec.keyFile ? [['KBSYNC_STATE_KEY_FILE', spec.keyFile]] : [])];
  const entries = variables.map(([name, value]) => `    <key>${name}</key>\n    <string>${xml(value ?? '')}</string>\n`).join('');
  const env = entries ? `  <key>EnvironmentVariables</key>\n  <dict>\n${entries}  </dict>\n` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- ${PLIST_MARK} for ${xmlComment(spec.root)}; kbsync service uninstall removes it. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${xml(label)}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>WorkingDirectory</key>
  <string>${xml(path.dirname(spec.configPath))}</string>
${env}  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>60</integer>
  <key>StandardErrorPath</key>
  <string>${xml(logFile)}</string>
  <key>StandardOutPath</key>
  <string>${xml(logFile)}</string>
  <key>Umask</key>
  <integer>63</integer>
</dict>
</plist>
`;
}
