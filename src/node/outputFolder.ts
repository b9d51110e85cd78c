/**
 * Writes generated files into one folder and never outside it: a relative path with
 * `..`, an absolute path, the folder itself or a folder on the way being a symbolic link
 * is refused, when the folder is opened and again at each write (`writeFileInside`). Each
 * file is written to a temporary file beside it and renamed over, so a reader never sees
 * half a file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/model';
import { writeFileInside } from './files';
import { refuseLink } from './persistence/noLinks';

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

export class OutputFolder {
  /** The folder's real path (links resolved); created if missing. */
  readonly root: string;

  /** The folder as given (absolute): it must stay a folder, not become a link. */
  private readonly folder: string;

  constructor(folder: string) {
    this.folder = path.resolve(folder);
    // A link at the folder itself (`.context-ledger/artifacts` shipped as a link by a clone,
    // `export --out <link>`) would put every file at its target.
    refuseLink(this.folder, 'the output folder');
    try {
      fs.mkdirSync(folder, { recursive: true });
      this.root = fs.realpathSync(folder);
    } catch (error) {
      throw new UserError(`Cannot use the folder ${folder} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`, 'Check that it is a folder you can write in.');
    }
    if (!fs.statSync(this.root).isDirectory()) throw new UserError(`${folder} is a file, not a folder.`);
  }

  /**
   * The absolute path of `relative` ('/'-separated) inside the folder, or a UserError if
   * it would leave it (`..`, absolute, a drive letter, or through a link that points out).
   */
  resolve(relative: string): string {
    const parts = relative.split(/[\\/]/);
    if (relative === '' || path.isAbsolute(relative) || /^[A-Za-z]:/.test(relative) || parts.includes('..') || relative.includes('\0')) {
      throw new UserError(`Refused to write "${relative}": it is outside ${this.root}.`);
    }
    let real = this.root;
    for (const part of parts.filter((p) => p !== '' && p !== '.')) {
      const next = path.join(real, part);
      let target = next;
      try {
        target = fs.realpathSync(next);
      } catch {
        // Does not exist yet: it will be created here, inside.
      }
      if (!isInside(this.root, target)) throw new UserError(`Refused to write "${relative}": ${next} is a link to outside ${this.root}.`);
      real = target;
    }
    return real;
  }

  read(relative: string): string | undefined {
    try {
      return fs.readFileSync(this.resolve(relative), 'utf8');
    } catch (error) {
      if (error instanceof UserError) throw error;
      return undefined;
    }
  }

  write(relative: string, content: string, options: { durable?: boolean } = {}): void {
    const file = this.resolve(relative);
    // Checked again now: the folder may have become a link since it was opened.
    refuseLink(this.folder, 'the output folder');
    writeFileInside(this.root, file, content, relative, options);
  }

  remove(relative: string): void {
    fs.rmSync(this.resolve(relative), { force: true });
  }
}
