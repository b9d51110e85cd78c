/**
 * What `dist/tokenizer-<name>.js` runs: gpt-tokenizer's own encoder, given its rank table from
 * `tokenizer-<name>.json` beside it (written at build time from the same package's ranks, see
 * esbuild.config.mjs). The package ships the ranks as a JavaScript array literal; V8 compiles
 * that 2.8 MB literal into code and constants it keeps, which cost o200k_base ~70 MB of
 * resident memory in a bare Node process. Parsed as JSON, the same ranks cost about half,
 * and the counts are the package's own (a unit test compares them).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';

type EncodingName = Parameters<typeof GptEncoding.getEncodingApi>[0];
type Ranks = ReturnType<Parameters<typeof GptEncoding.getEncodingApi>[1]>;

export function encodingFromFile(name: EncodingName, dir: string): GptEncoding {
  return GptEncoding.getEncodingApi(name, () => JSON.parse(fs.readFileSync(path.join(dir, `tokenizer-${name}.json`), 'utf8')) as Ranks);
}
