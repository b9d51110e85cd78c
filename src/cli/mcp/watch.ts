/**
 * Watches the ledger (its database, one inotify watch, and its artifact files) and tells the clients: `notifications/resources/list_changed`
 * when another process changed the ledger, `notifications/resources/updated` for each
 * subscribed artifact whose text changed, whoever changed it (an agent, the CLI, an editor
 * saving an artifact file). A subscription is a 2025-era `resources/subscribe` or a URI in
 * a 2026-07-28 `subscriptions/listen` filter; each transport says how its clients are told
 * (a {@link ChangeNotifier}).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { idFromRef, URN_PREFIX } from '../../core/model';
import { mirrorFolderOf } from '../../node/ledgerFolder';
import type { LedgerBackend } from './calls';
import { errorText, log } from './log';

/** Changes closer together than this are one change (an editor's save is several events). */
const SETTLE_MS = 150;

/** Most artifacts one listen request subscribes to. */
const MAX_LISTENED = 1000;

/** How the clients of one transport hear of changes. */
export interface ChangeNotifier {
  listChanged(): Promise<void>;
  updated(uri: string): Promise<void>;
}

export class LedgerWatch {
  /** Subscribed resource URIs and what each showed when last looked at. */
  private readonly subscribed = new Map<string, string>();
  private readonly watchers: fs.FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private checking = Promise.resolve();
  private readonly notifiers = new Set<ChangeNotifier>();

  constructor(private readonly worker: LedgerBackend) {}

  /** Tells `notifier` of every change from now on; the returned function stops that. */
  notify(notifier: ChangeNotifier): () => void {
    this.notifiers.add(notifier);
    return () => this.notifiers.delete(notifier);
  }

  private async tell(send: (notifier: ChangeNotifier) => Promise<void>): Promise<void> {
    await Promise.all([...this.notifiers].map((n) => send(n).catch(() => undefined)));
  }

  /** Starts watching the ledger at `file`, once it is served. */
  watch(file: string): void {
    const base = path.basename(file);
    const mirror = mirrorFolderOf(file);
    let watchingMirror = false;
    const watchMirror = (): void => {
      if (watchingMirror || !fs.existsSync(mirror)) return;
      watchingMirror = true;
      this.add(mirror, true, (name) => name === null || name.endsWith('.md'));
    };
    this.add(path.dirname(file), false, (name) => {
      // The artifacts folder made after the server started (the first `add` writes its file there).
      if (name === path.basename(mirror)) watchMirror();
      return name === null || name === base || name === path.basename(mirror);
    });
    watchMirror();
  }

  private add(folder: string, recursive: boolean, relevant: (name: string | null) => boolean): void {
    try {
      this.watchers.push(
        fs.watch(folder, { persistent: false, recursive }, (_event, name) => {
          if (relevant(name === null ? null : String(name))) this.soon();
        }),
      );
    } catch (error) {
      log(`not watching ${folder} for changes: ${errorText(error)}`);
    }
  }

  private soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.checking = this.checking.then(() => this.check()).catch(() => undefined);
    }, SETTLE_MS);
  }

  private async check(): Promise<void> {
    const reply = await this.worker.request({ type: 'refresh' }).done;
    if (reply.result === true) await this.tell((n) => n.listChanged());
    await this.compare();
  }

  /** Sends resources/updated for each subscribed artifact that shows something else now. */
  private async compare(): Promise<void> {
    if (this.subscribed.size === 0) return;
    const uris = [...this.subscribed.keys()];
    const stamps = await this.stamps(uris);
    for (const [i, uri] of uris.entries()) {
      if (stamps[i] === this.subscribed.get(uri) || !this.subscribed.has(uri)) continue;
      this.subscribed.set(uri, stamps[i]!);
      await this.tell((n) => n.updated(uri));
    }
  }

  private async stamps(uris: string[]): Promise<string[]> {
    const reply = await this.worker.request({ type: 'stamps', refs: uris.map((u) => idFromRef(u)) }).done;
    return Array.isArray(reply.result) ? (reply.result as string[]) : uris.map(() => '');
  }

  async subscribe(uri: string): Promise<void> {
    if (this.subscribed.has(uri)) return;
    const [stamp] = await this.stamps([uri]);
    this.subscribed.set(uri, stamp ?? '');
  }

  /**
   * A 2026-07-28 client subscribes to artifacts in its `subscriptions/listen` filter (the SDK
   * answers the request itself): their changes are then published like a 2025-era subscriber's.
   */
  observe(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'subscriptions/listen') return;
    const wanted = (message.params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications?.resourceSubscriptions;
    if (!Array.isArray(wanted)) return;
    for (const uri of wanted.slice(0, MAX_LISTENED)) {
      if (typeof uri === 'string' && uri.startsWith(URN_PREFIX)) void this.subscribe(uri).catch(() => undefined);
    }
  }

  unsubscribe(uri: string): void {
    this.subscribed.delete(uri);
  }

  /** After the server's own writes: subscribers hear of them as of anyone's. */
  changedHere(): void {
    this.soon();
  }

  close(): void {
    clearTimeout(this.timer);
    for (const w of this.watchers.splice(0)) w.close();
  }
}
