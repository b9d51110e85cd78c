import type { ActivePath } from './paths';
import { forEachTerm } from './text';

/**
 * What every developer reads from a file's name before opening it: a change to
 * `001_add_users.sql` is a database change, a change to `UserTests.cs` is a test change, a
 * change to `.github/workflows/ci.yml` is a CI change. A team's standing rules are written
 * per kind of change ("Testing", "Migrations", "Editing resources"), and the task's words
 * rarely name the kind ("fix the crash on square brackets" touches a test file too). So the
 * kinds of the files in play add the words those rules use to the query (`kindQuery`).
 *
 * Recognised from the path alone (names, extensions, folders, across languages); nothing is
 * read from disk, so a path that does not exist, leaves the workspace or is a link is only
 * a string here.
 */
export interface ChangeKind {
  /** What `explain` says: "change kind: tests". */
  name: string;
  /** Whether a file (or, `isDir`, a folder) in play is of this kind, from its workspace-relative path. */
  match(path: string, isDir: boolean): boolean;
  /**
   * The words a team's rules about this kind are written with: the kind's common names and
   * the names of its file types (a rule about resource files names `.resx`).
   */
  vocabulary: string;
  /**
   * Words a rule about this kind is titled with besides its vocabulary: the checks a code
   * change must pass are run by the repository's commands ("Build and Development Commands").
   */
  titleWords?: string;
}

/** The last path segment. */
function fileName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : path.slice(slash + 1);
}

/** A folder named one of `names` anywhere on the path (case-insensitive). */
function underFolder(path: string, names: readonly string[], isDir: boolean): boolean {
  const segments = path.toLowerCase().split('/');
  const folders = isDir ? segments : segments.slice(0, -1);
  return folders.some((s) => names.includes(s));
}

/** A folder whose name matches `re` anywhere on the path. */
function underFolderLike(path: string, re: RegExp, isDir: boolean): boolean {
  const segments = path.split('/');
  const folders = isDir ? segments : segments.slice(0, -1);
  return folders.some((s) => re.test(s));
}

/** Source code in the languages teams write, by extension (not markup, data or configuration). */
const SOURCE_FILE = /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs|py|go|rs|java|kt|kts|cs|fs|vb|rb|php|swift|c|cc|cpp|cxx|h|hpp|m|mm|scala|dart|ex|exs|lua|vue|svelte)$/i;

/** A file (not a folder) whose name matches `re`. */
const is = (re: RegExp) => (path: string, isDir: boolean) => !isDir && re.test(fileName(path));

/**
 * The kinds, each with what makes a path one and the words of its rules. Principles:
 * a kind is named by the file's own conventions (test runners' file patterns, migration
 * tools' folders, CI services' fixed locations), never by words that merely occur in paths;
 * the vocabulary is the kind's ordinary names, kept few so that it adds a topic, not noise.
 */
export const CHANGE_KINDS: readonly ChangeKind[] = [
  {
    name: 'tests',
    match: (p, dir) =>
      underFolder(p, ['test', 'tests', '__tests__', 'spec', 'specs', 'e2e', 'testdata', '__snapshots__'], dir) ||
      // .NET and JVM test projects: `Foo.Tests/`, `Foo.UnitTests/`.
      underFolderLike(p, /\.(?:unit|integration|functional|endtoend|e2e)?tests?$/i, dir) ||
      // Jest/Vitest/Mocha `x.test.ts`, `x.spec.js`, `x.e2e.ts`; Go `x_test.go`; pytest `test_x.py`, `x_test.py`; RSpec `x_spec.rb`.
      is(/[._-](?:test|tests|spec|e2e|clienttest|servertest)\.[a-z0-9]+$|^test_[^/]+\.py$/i)(p, dir) ||
      // xUnit, NUnit, JUnit: `FooTests.cs`, `FooTest.java`, `FooSpec.kt`.
      is(/[a-z0-9](?:Test|Tests|Spec)\.(?:cs|fs|vb|java|kt|scala|groovy|swift|php|m)$/)(p, dir),
    vocabulary: 'test tests testing unit fixture mock assertion',
  },
  {
    name: 'database',
    match: (p, dir) =>
      underFolder(p, ['migrations', 'migration', 'migrate', 'alembic', 'flyway', 'liquibase', 'prisma', 'sql', 'db', 'database'], dir) ||
      is(/\.(?:sql|prisma)$|migration/i)(p, dir),
    vocabulary: 'database migration migrations schema sql',
  },
  {
    name: 'CI',
    match: (p, dir) =>
      /(?:^|\/)\.github\/workflows(?:\/|$)|(?:^|\/)\.circleci(?:\/|$)|(?:^|\/)\.buildkite(?:\/|$)|(?:^|\/)eng\/pipelines(?:\/|$)/i.test(p) ||
      is(/^\.gitlab-ci\.ya?ml$|^jenkinsfile$|^azure-pipelines[^/]*\.ya?ml$|^\.travis\.ya?ml$|^bitbucket-pipelines\.ya?ml$/i)(p, dir),
    vocabulary: 'ci pipeline pipelines workflow workflows',
  },
  {
    name: 'dependencies',
    match: is(
      /^(?:package\.json|package-lock\.json|pnpm-lock\.yaml|yarn\.lock|go\.mod|go\.sum|cargo\.toml|cargo\.lock|pyproject\.toml|poetry\.lock|uv\.lock|setup\.py|setup\.cfg|requirements[^/]*\.txt|pipfile(?:\.lock)?|gemfile(?:\.lock)?|composer\.json|pom\.xml|build\.gradle(?:\.kts)?|directory\.packages\.props|packages\.config)$|\.(?:csproj|fsproj|vbproj)$/i,
    ),
    vocabulary: 'dependency dependencies version versions package packages',
  },
  {
    name: 'containers',
    match: (p, dir) => underFolder(p, ['helm', 'charts', 'k8s', 'kubernetes', 'terraform'], dir) || is(/^dockerfile|^docker-compose[^/]*\.ya?ml$|^compose\.ya?ml$|\.dockerfile$|\.tf$/i)(p, dir),
    vocabulary: 'docker container containers image deploy deployment kubernetes helm',
  },
  {
    name: 'documentation',
    match: is(/\.(?:md|mdx|rst|adoc)$/i),
    vocabulary: 'documentation docs readme markdown',
  },
  {
    name: 'localization',
    match: (p, dir) => underFolder(p, ['locales', 'locale', 'i18n', 'l10n', 'translations', 'xlf'], dir) || is(/\.(?:resx|xlf|xliff|po|pot|strings|arb)$/i)(p, dir),
    vocabulary: 'localization translation translations resx xlf resources strings',
  },
  {
    name: 'API contract',
    match: is(/\.(?:proto|graphql|gql)$|^(?:openapi|swagger)[^/]*\.(?:ya?ml|json)$|\.schema\.json$/i),
    vocabulary: 'api schema contract protobuf openapi',
  },
  {
    name: 'configuration',
    match: is(/^\.env(?:\.[\w.-]+)?$|^env\.(?:m?js|ts|mts)$/i),
    vocabulary: 'environment env variable variables configuration',
  },
  {
    name: 'lint',
    match: is(/^\.eslintrc|^eslint\.config\.|^\.golangci\.ya?ml$|^\.prettierrc|^prettier\.config\.|^\.editorconfig$|^ruff\.toml$|^\.rubocop\.ya?ml$|^biome\.jsonc?$|^\.stylelintrc/i),
    vocabulary: 'lint linter linting formatting style',
  },
  {
    name: 'generated code',
    match: is(/\.(?:pb|sql|gen|generated)\.go$|\.(?:g|designer|generated)\.cs$|_pb2(?:_grpc)?\.py$|\.generated\.[a-z]+$/i),
    vocabulary: 'generated generate regenerate codegen',
  },
  {
    // Every change to source code must pass the repository's checks before it is done (its
    // tests, its linters, its verification steps) and is recorded in its changelog: a team's
    // rules on how ("Verification", "Code Quality Rules", "Changelog ownership") apply to a code
    // change whatever it is about, and their words are rarely the task's. The vocabulary names
    // the checks only: "build", "format" and "commit" are also everyday words of rules about
    // other work (a docs rule's "build and test before commit"), and measured lower (docs/benchmarks.md).
    name: 'code',
    match: is(SOURCE_FILE),
    vocabulary: 'test tests lint verify verification changelog',
    titleWords: 'commands',
  },
];


/** The kinds of the files in play, in table order, each once. */
export function changeKindsOf(active: readonly ActivePath[]): ChangeKind[] {
  return CHANGE_KINDS.filter((kind) => active.some((a) => kind.match(a.path, a.isDir)));
}

/**
 * Which of `kinds` a rule's title names (its vocabulary or title words, stemmed as the index
 * stems), or undefined. A title says what a rule governs: "Linting", "Testing", "When to
 * verify", "Build and Development Commands" govern every change of their kind, whatever the
 * change is about, while the task's words rarely name them.
 */
export function kindNamedByTitle(kinds: readonly ChangeKind[]): (title: string) => string | undefined {
  const terms = kinds.map((kind) => {
    const set = new Set<string>();
    forEachTerm(`${kind.vocabulary} ${kind.titleWords ?? ''}`, (t) => set.add(t));
    return { name: kind.name, set };
  });
  return (title) => {
    if (terms.length === 0) return undefined;
    let named: string | undefined;
    forEachTerm(title, (t) => {
      named ??= terms.find((k) => k.set.has(t))?.name;
    });
    return named;
  };
}
