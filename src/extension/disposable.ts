import type * as vscode from 'vscode';

/** Owns disposables registered with `register()` and disposes them with itself (last in, first out). */
export class DisposableBase implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposed = false;

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  protected register<T extends vscode.Disposable>(disposable: T): T {
    if (this.disposed) disposable.dispose();
    else this.owned.push(disposable);
    return disposable;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const disposable of this.owned.splice(0).reverse()) {
      try {
        disposable.dispose();
      } catch {
        // One failing disposer must not keep the others alive.
      }
    }
  }
}

/** A timer as a Disposable: `schedule()` (re)starts it, `dispose()` cancels it. */
export class Debouncer implements vscode.Disposable {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly delayMs: number,
    private readonly run: () => void,
  ) {}

  schedule(delayMs = this.delayMs): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.run();
    }, delayMs);
  }

  get pending(): boolean {
    return this.timer !== undefined;
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.cancel();
  }
}
