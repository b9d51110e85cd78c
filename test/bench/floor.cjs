// Spawned by speed.mjs: the floor of a command on a ledger, in a process of its own as a
// command is. Loads sql.js, reads the database file and the index a session checks (each
// latest version's id, chain, hash and time), and exits. With `--parse <folder> <n>` it
// also reads and parses n artifact files there (the work a pull of n files asks for),
// with the bundled CLI's parser.
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const [db, flag, folder, count] = process.argv.slice(2);
  const initSqlJs = require(require.resolve('sql.js', { paths: [path.resolve(__dirname, '../..')] }));
  const SQL = await initSqlJs();
  const database = new SQL.Database(fs.readFileSync(db));
  const rows = database.exec('SELECT id, chain_id, content_hash, updated_at FROM artifact WHERE is_latest = 1')[0]?.values.length ?? 0;
  database.close();
  if (flag === '--parse') {
    const { parseMirrorFile } = require(process.env.BENCH_MIRROR_PARSER);
    const files = fs.readdirSync(folder, { recursive: true }).filter((f) => f.endsWith('.md')).slice(0, Number(count));
    for (const f of files) parseMirrorFile(f, fs.readFileSync(path.join(folder, f), 'utf8'));
  }
  process.stdout.write(`${rows}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
