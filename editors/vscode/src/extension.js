// The VS Code client of `discussions lsp`: starts the server with the command from the
// settings, hands it the markdown files, and shows the `discussions/status` notification of
// the file in the active editor in the status bar.
//
// The server answers every request itself (diagnostics, completion, hover, outline, code
// actions); its commands (`discussions.ask`, `discussions.advance`, ...) are registered in VS
// Code by vscode-languageclient from the server's `executeCommandProvider`.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

/** The custom notification the server sends after each check of an open discussion
 * (src/discussions/lsp/status.py, `STATUS_METHOD`). */
const STATUS_METHOD = "discussions/status";

/** Every markdown file saved on disk. Which of them is a discussion is the server's answer
 * (a `<!-- DISCUSSION -->` header or a comment boundary, as `discussions check` decides), not
 * the client's: a selector cannot look into a file, and the discussions folder is a project
 * setting (`discussions.yaml`) that `discussions new` does not even have to use. Files that
 * are not discussions get no diagnostics and no status from the server. Unsaved (`untitled`)
 * buffers are left out: the server reads the project from the file's folder. */
const DOCUMENT_SELECTOR = [{ scheme: "file", language: "markdown" }];

/**
 * The server's executable and arguments, from the `discussions.server` settings, started in
 * the first workspace folder (the server reads that project's `discussions.yaml`).
 * @param {vscode.WorkspaceConfiguration} config the `discussions` section
 * @param {string | undefined} cwd the folder to start it in
 * @returns {import("vscode-languageclient/node").Executable}
 */
function serverOptions(config, cwd) {
  const command = config.get("server.command", "discussions");
  const args = config.get("server.args", ["lsp"]);
  return { command, args: [...args], options: cwd ? { cwd } : {} };
}

/** @returns {import("vscode-languageclient/node").LanguageClientOptions} */
function clientOptions() {
  return { documentSelector: DOCUMENT_SELECTOR };
}

/** The status bar item: the last status of each discussion, the active editor's shown. */
class StatusView {
  /** @param {vscode.StatusBarItem} item */
  constructor(item) {
    this.item = item;
    /** @type {Map<string, any>} status parameters by document URI (as `Uri.toString()`) */
    this.byUri = new Map();
  }

  /**
   * Keep the status of one document, and show it if that document is in the active editor.
   * @param {any} params the notification's parameters (`uri`, `text`, `title`, `problems`, ...)
   */
  update(params) {
    this.byUri.set(vscode.Uri.parse(params.uri).toString(), params);
    this.show(vscode.window.activeTextEditor);
  }

  /** Show the status of the editor's document, or hide the item when it has none.
   * @param {vscode.TextEditor | undefined} editor */
  show(editor) {
    const params = editor && this.byUri.get(editor.document.uri.toString());
    if (!params) {
      this.item.hide();
      return;
    }
    const p = params.problems || {};
    this.item.text = `$(comment-discussion) ${params.text}`;
    this.item.tooltip =
      `${params.title} (${params.status})\n` +
      `${p.error || 0} errors, ${p.warning || 0} warnings, ${p.hint || 0} hints`;
    this.item.command = {
      title: "Show the discussion's status",
      command: "discussions.status",
      arguments: [params.uri],
    };
    this.item.show();
  }

  /** Forget a closed document's status.
   * @param {vscode.TextDocument} document */
  forget(document) {
    this.byUri.delete(document.uri.toString());
    this.show(vscode.window.activeTextEditor);
  }
}

/** @type {LanguageClient | undefined} */
let client;

/**
 * Start the client (and with it the server), and the status bar item.
 * @param {vscode.ExtensionContext} context
 */
async function activate(context) {
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  const view = new StatusView(item);
  context.subscriptions.push(
    item,
    vscode.window.onDidChangeActiveTextEditor((editor) => view.show(editor)),
    vscode.workspace.onDidCloseTextDocument((document) => view.forget(document)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("discussions.server")) {
        await stop();
        await start(view);
      }
    }),
  );
  await start(view);
}

/** Start a client with the current settings, its status notifications going to `view`.
 * @param {StatusView} view */
async function start(view) {
  const config = vscode.workspace.getConfiguration("discussions");
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  client = new LanguageClient(
    "discussions",
    "Discussions",
    serverOptions(config, folder),
    clientOptions(),
  );
  client.onNotification(STATUS_METHOD, (params) => view.update(params));
  await client.start();
}

/** Stop the running client, if any (VS Code waits for it on deactivation). */
async function stop() {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

module.exports = {
  activate,
  deactivate: stop,
  serverOptions,
  clientOptions,
  StatusView,
  DOCUMENT_SELECTOR,
  STATUS_METHOD,
};
