// Tokenize Kite files with the extension's TextMate grammar (vscode-textmate + vscode-oniguruma, as VS Code does)
// and print, as JSON, every keyword occurrence the grammar leaves without a scope of its own.
// Usage: node test/tokenize.js KEYWORDS_JSON FILE...   (tests/test_editors.py passes kite_keywords() and the samples)
const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm")).buffer;
const onigLib = oniguruma.loadWASM(wasm).then(() => ({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (text) => new oniguruma.OnigString(text),
}));
const registry = new vsctm.Registry({
  onigLib,
  loadGrammar: async (scopeName) => scopeName === "source.kite"
    ? vsctm.parseRawGrammar(fs.readFileSync(path.join(__dirname, "..", "syntaxes", "kite.tmLanguage.json"), "utf8"), "kite.tmLanguage.json")
    : null,
});

async function main() {
  const [keywordsJson, ...files] = process.argv.slice(2);
  const keywords = new Set(JSON.parse(keywordsJson));
  const grammar = await registry.loadGrammar("source.kite");
  const unscoped = [];
  let seen = 0;
  for (const file of files) {
    let state = vsctm.INITIAL;
    fs.readFileSync(file, "utf8").split("\n").forEach((line, index) => {
      const result = grammar.tokenizeLine(line, state);
      // Every keyword as a word of the line, then the token it starts in: unscoped text merges into one token.
      for (const match of line.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
        if (!keywords.has(match[0])) continue;
        const token = result.tokens.find((t) => t.startIndex <= match.index && match.index < t.endIndex);
        const inside = token.scopes.slice(1);
        if (inside.some((scope) => scope.startsWith("string") || scope.startsWith("comment"))) continue;
        seen += 1;
        if (inside.length === 0) unscoped.push({ file, line: index + 1, column: match.index + 1, keyword: match[0] });
      }
      state = result.ruleStack;
    });
  }
  process.stdout.write(JSON.stringify({ keywords_seen: seen, unscoped }) + "\n");
}

main().catch((error) => { console.error(error); process.exit(2); });
