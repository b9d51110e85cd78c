import * as vscode from 'vscode';
import { type ExtensionConfig, readConfig, toAssembleOptions } from './configModel';
import { type SettingName, SETTINGS, SETTINGS_SECTION } from './ids';
import type { PartialOptions } from '../core/assemble/types';
import { DisposableBase } from './disposable';

export interface ConfigChange {
  affects(setting: SettingName, scope?: vscode.ConfigurationScope): boolean;
  /** `files.exclude` changed (it feeds the tracking filter). */
  filesExclude: boolean;
}

/**
 * The one place settings are read. `get(folder)` returns typed, validated values for a
 * workspace folder (settings are resource-scoped in multi-root workspaces);
 * `onDidChange` fires only for changes to `contextLedger.*` or `files.exclude`.
 */
export class ConfigService extends DisposableBase {
  private readonly changed = this.register(new vscode.EventEmitter<ConfigChange>());
  readonly onDidChange = this.changed.event;

  constructor() {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        const ours = event.affectsConfiguration(SETTINGS_SECTION);
        const filesExclude = event.affectsConfiguration('files.exclude');
        if (!ours && !filesExclude) return;
        this.changed.fire({
          affects: (setting, scope) => event.affectsConfiguration(`${SETTINGS_SECTION}.${setting}`, scope),
          filesExclude,
        });
      }),
    );
  }

  get(scope?: vscode.ConfigurationScope): ExtensionConfig {
    const section = vscode.workspace.getConfiguration(SETTINGS_SECTION, scope);
    return readConfig((name) => section.get(name));
  }

  assembleOptions(scope?: vscode.ConfigurationScope): PartialOptions {
    return toAssembleOptions(this.get(scope));
  }

  /** `files.exclude` globs that are switched on, for the folder. */
  filesExclude(scope?: vscode.ConfigurationScope): unknown {
    return vscode.workspace.getConfiguration('files', scope).get('exclude');
  }

  async set(setting: SettingName, value: unknown, target = vscode.ConfigurationTarget.Workspace, scope?: vscode.ConfigurationScope): Promise<void> {
    await vscode.workspace.getConfiguration(SETTINGS_SECTION, scope).update(setting, value, target);
  }

  static readonly settings = SETTINGS;
}
