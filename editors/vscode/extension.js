// The Kite extension: the grammar and language configuration come from package.json; this starts `kite lsp`.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration("kite");
  const server = { command: settings.get("command"), args: ["lsp"] };
  client = new LanguageClient("kite", "Kite", { run: server, debug: server }, {
    documentSelector: [{ scheme: "file", language: "kite" }],
    // The server indexes the workspace's .kite files: it hears of those changed outside the editor too.
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.kite") },
    initializationOptions: {
      kiteDelay: settings.get("kiteDelay"),
      csharpDelay: settings.get("csharpDelay"),
      idleRelease: settings.get("idleRelease"),
    },
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
