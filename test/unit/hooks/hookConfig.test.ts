import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { parse } from 'jsonc-parser';
import { INSTALLED_EVENTS, installHooks, isLedgerHook, uninstallHooks } from '../../../src/core/hooks/hookConfig';
import { UserError } from '../../../src/core/model';

const ENTRIES = INSTALLED_EVENTS['claude-code']!.map((e) => ({ ...e, command: `'/opt/node 22/bin/node' /x/dist/cli.js hook ${e.event} --agent claude-code`, timeout: 10 }));

const USERS_OWN = `{
  // my own settings — ünïcode kept
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./check-bash.sh" }] }
    ],
    "UserPromptSubmit": [
      { "hooks": [{ "type": "command", "command": "./my-prompt-hook.sh" }] }
    ]
  },
}
`;

test('install merges after the user’s own hooks, keeps their order, comments and other keys, and says what it added', () => {
  const { text, changes } = installHooks(USERS_OWN, '.claude/settings.local.json', 'claude-code', ENTRIES);
  assert.deepEqual(
    changes.map((c) => `${c.change} ${c.eventName} ${c.matcher ?? ''}`.trim()),
    ['added SessionStart startup|resume|clear', 'added SessionStart compact', 'added UserPromptSubmit', 'added PreToolUse Write|Edit|MultiEdit'],
  );
  assert.match(text, /\/\/ my own settings — ünïcode kept/);
  const config = parse(text) as { permissions: unknown; hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
  assert.deepEqual(config.permissions, { allow: ['Bash(npm test)'] });
  assert.equal(config.hooks.PreToolUse![0]!.hooks[0]!.command, './check-bash.sh', 'the user’s hook stays first');
  assert.equal(config.hooks.PreToolUse![1]!.matcher, 'Write|Edit|MultiEdit');
  assert.equal(config.hooks.UserPromptSubmit![0]!.hooks[0]!.command, './my-prompt-hook.sh');
  assert.ok(isLedgerHook(config.hooks.UserPromptSubmit![1]!.hooks[0]!.command, 'claude-code'));
  assert.equal(config.hooks.SessionStart!.length, 2);
});

test('install twice changes nothing; a moved CLI updates the command in place', () => {
  const once = installHooks('', 'settings.json', 'claude-code', ENTRIES).text;
  const twice = installHooks(once, 'settings.json', 'claude-code', ENTRIES);
  assert.equal(twice.text, once);
  assert.deepEqual(twice.changes, []);
  const moved = ENTRIES.map((e) => ({ ...e, command: e.command.replace('/x/dist', '/y/dist') }));
  const updated = installHooks(once, 'settings.json', 'claude-code', moved);
  assert.equal(updated.changes.length, 4);
  assert.ok(updated.changes.every((c) => c.change === 'updated'));
  assert.ok(!updated.text.includes('/x/dist') && updated.text.includes('/y/dist'));
  assert.equal((parse(updated.text) as { hooks: Record<string, unknown[]> }).hooks.SessionStart!.length, 2, 'updated, not added again');
});

test('a file that does not parse, or whose hooks are not the documented shape, is refused with where and why', () => {
  assert.throws(() => installHooks('{"hooks": {', 'settings.json', 'claude-code', ENTRIES), (e: unknown) => e instanceof UserError && /does not parse \(\w+ at line 1\); nothing was changed/.test(e.message));
  assert.throws(() => installHooks('[1, 2]', 'settings.json', 'claude-code', ENTRIES), /not a JSON object/);
  assert.throws(() => installHooks('{"hooks": []}', 'settings.json', 'claude-code', ENTRIES), /"hooks" in settings.json is not an object/);
  assert.throws(() => installHooks('{"hooks": {"PreToolUse": {}}}', 'settings.json', 'claude-code', ENTRIES), /"hooks.PreToolUse" .* is not a list/);
  assert.throws(() => uninstallHooks('{"hooks": {', 'settings.json', 'claude-code'), /does not parse/);
});

test('uninstall takes out only the ledger’s hooks, leaving the user’s, and an empty hooks object goes', () => {
  const installed = installHooks(USERS_OWN, 'settings.json', 'claude-code', ENTRIES).text;
  const { text, changes } = uninstallHooks(installed, 'settings.json', 'claude-code');
  assert.equal(changes.length, 4);
  assert.ok(changes.every((c) => c.change === 'removed'));
  const config = parse(text) as { hooks: Record<string, unknown[]> };
  assert.deepEqual(Object.keys(config.hooks).sort(), ['PreToolUse', 'UserPromptSubmit']);
  assert.match(text, /check-bash\.sh/);
  assert.match(text, /my-prompt-hook\.sh/);
  const alone = uninstallHooks(installHooks('{}', 's.json', 'claude-code', ENTRIES).text, 's.json', 'claude-code');
  assert.deepEqual(parse(alone.text), {});
  assert.deepEqual(uninstallHooks(text, 's.json', 'claude-code').changes, [], 'nothing left to remove');
});

test('a hook of the same group beside the ledger’s stays when the ledger’s goes', () => {
  const mixed = JSON.stringify({
    hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node /x/dist/cli.js hook prompt --agent claude-code' }, { type: 'command', command: 'echo mine' }] }] },
  });
  const { text } = uninstallHooks(mixed, 's.json', 'claude-code');
  assert.deepEqual(parse(text), { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] } });
  assert.equal(isLedgerHook('node cli.js hook prompt --agent codex', 'claude-code'), false, 'another agent’s entry is not this one’s');
});
