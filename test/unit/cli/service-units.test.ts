import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchdPlist } from '../../../src/cli/service/launchd-plist.js';
import { serviceName, servicePaths, type ServiceSpec } from '../../../src/cli/service/spec.js';
import { systemdUnit, unitWord } from '../../../src/cli/service/systemd-unit.js';

const SPEC: ServiceSpec = {
  name: 'kbsync-r-d-notes-0123abcd',
  root: '/home/me/R&D notes',
  configPath: '/home/me/R&D notes/sync.config.json',
  node: '/home/me/.nvm/versions/node/v20.19.0/bin/node',
  entry: '/home/me/.local/lib/node_modules/kbsync/bin/kbsync.js',
  writable: ['/home/me/R&D notes'],
  tokenFile: '/home/me/Library/Application Support/kbsync/kbsync-r-d-notes-0123abcd.token',
  keyFile: '/home/me/Library/Application Support/kbsync/kbsync-r-d-notes-0123abcd.state-key',
  readme: '/home/me/.local/lib/node_modules/kbsync/README.md',
};

test('a service is named after its folder, and two folders of one name get two services', () => {
  assert.match(serviceName('/home/me/notes'), /^kbsync-notes-[0-9a-f]{8}$/);
  assert.notEqual(serviceName('/home/me/notes'), serviceName('/home/you/notes'));
  assert.match(serviceName('/'), /^kbsync-root-[0-9a-f]{8}$/);
  assert.match(serviceName('/srv/Ünïcode Notes!'), /^kbsync-n-code-notes-[0-9a-f]{8}$/);
});

test('where the files go: XDG_CONFIG_HOME (or ~/.config) on Linux, ~/Library on macOS', () => {
  assert.deepEqual(servicePaths('systemd', 'kbsync-x-1', { HOME: '/h' }), { unit: '/h/.config/systemd/user/kbsync-x-1.service', tokenFile: '/h/.config/kbsync/kbsync-x-1.token', keyFile: '/h/.config/kbsync/kbsync-x-1.state-key' });
  assert.deepEqual(servicePaths('systemd', 'kbsync-x-1', { HOME: '/h', XDG_CONFIG_HOME: '/c' }).unit, '/c/systemd/user/kbsync-x-1.service');
  assert.deepEqual(servicePaths('launchd', 'kbsync-x-1', { HOME: '/h' }), {
    unit: '/h/Library/LaunchAgents/com.kbsync.x-1.plist',
    tokenFile: '/h/Library/Application Support/kbsync/kbsync-x-1.token',
    keyFile: '/h/Library/Application Support/kbsync/kbsync-x-1.state-key',
  });
});

test('unit words: plain when safe; quoted with a space; % and (in ExecStart) $ escaped', () => {
  assert.equal(unitWord('/usr/bin/node'), '/usr/bin/node');
  assert.equal(unitWord('/a b/c'), '"/a b/c"');
  assert.equal(unitWord('/a/100%'), '/a/100%%');
  assert.equal(unitWord('/a/$HOME', { exec: true }), '/a/$$HOME');
  assert.equal(unitWord('/a/$HOME'), '/a/$HOME', 'only ExecStart expands variables');
  assert.equal(unitWord('say "hi"\\'), '"say \\"hi\\"\\\\"');
  assert.match(systemdUnit(SPEC), /^ExecStart=\/home\/me\/\.nvm\/versions\/node\/v20\.19\.0\/bin\/node \/home\/me\/\.local\/lib\/node_modules\/kbsync\/bin\/kbsync\.js watch --config "\/home\/me\/R&D notes\/sync\.config\.json"$/m);
});

test('the launchd agent (macOS; its text is what is tested here, launchctl only runs on a Mac): the same command, the token file, escaped XML', () => {
  const plist = launchdPlist(SPEC, 'com.kbsync.r-d-notes-0123abcd', '/home/me/Library/Application Support/kbsync/kbsync-r-d-notes-0123abcd.log');
  assert.match(plist, /<key>Label<\/key>\n {2}<string>com\.kbsync\.r-d-notes-0123abcd<\/string>/);
  const args = [...plist.matchAll(/^ {4}<string>(.*)<\/string>$/gm)].map((match) => match[1]);
  assert.deepEqual(args.slice(0, 5), [SPEC.node, SPEC.entry, 'watch', '--config', '/home/me/R&amp;D notes/sync.config.json']);
  assert.match(plist, /<key>KBSYNC_SERVICE_TOKEN_FILE<\/key>\n {4}<string>\/home\/me\/Library\/Application Support\/kbsync\/kbsync-r-d-notes-0123abcd\.token<\/string>/);
  assert.match(plist, /<key>KBSYNC_STATE_KEY_FILE<\/key>\n {4}<string>\/home\/me\/Library\/Application Support\/kbsync\/kbsync-r-d-notes-0123abcd\.state-key<\/string>\n {2}<\/dict>/);
  assert.match(systemdUnit(SPEC), /^Environment="KBSYNC_STATE_KEY_FILE=\/home\/me\/Library\/Application Support\/kbsync\/kbsync-r-d-notes-0123abcd\.state-key"$/m);
  assert.match(plist, /<key>KeepAlive<\/key>\n {2}<dict>\n {4}<key>SuccessfulExit<\/key>\n {4}<false\/>/);
  assert.doesNotMatch(plist.replace(/<!--.*?-->/gs, '').replace(/&(amp|lt|gt|quot);/g, ''), /&/, 'every & in an element is escaped');
  assert.match(plist, /<!-- Written by kbsync service install for \/home\/me\/R&D notes;/, 'a comment reads no escapes: the path as written');
});
