// The package ships no types; it exports one function (CommonJS `module.exports = stem`).
declare module 'wink-porter2-stemmer' {
  function stem(word: string): string;
  export = stem;
}
