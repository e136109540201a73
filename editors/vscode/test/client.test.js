// The client's wiring, with the `vscode` API and the LanguageClient stood in for
// (test/vscode-stub.js, test/languageclient-stub.js) and the real `discussions lsp` behind
// them. Run by tests/lsp/test_vscode.py, which makes the project and names the server:
//   DISCUSSIONS_LSP_COMMAND  the server's command and arguments (a JSON list)
//   DISCUSSIONS_TEST_PROJECT the project folder; discussions/feature.md is a discussion that
//                            waits for @security, notes.md a markdown file that is not one
"use strict";

const assert = require("node:assert/strict");
const { once } = require("node:events");
const Module = require("node:module");
const path = require("node:path");
const { test } = require("node:test");

const stubs = {
  vscode: path.join(__dirname, "vscode-stub.js"),
  "vscode-languageclient/node": path.join(__dirname, "languageclient-stub.js"),
};
const resolve = /** @type {any} */ (Module)._resolveFilename;
/** @type {any} */ (Module)._resolveFilename = function (/** @type {string} */ request, /** @type {any[]} */ ...rest) {
  return stubs[/** @type {keyof typeof stubs} */ (request)] ?? resolve.call(this, request, ...rest);
};

const fs = require("node:fs");
const vscode = require("vscode");
const { made } = require("vscode-languageclient/node");
const extension = require("../src/extension.js");

const [command, ...args] = JSON.parse(process.env.DISCUSSIONS_LSP_COMMAND ?? "null");
const project = process.env.DISCUSSIONS_TEST_PROJECT ?? "";

/** An open document in the stub workspace. @param {string} file @param {string} languageId */
function document(file, languageId) {
  const text = fs.readFileSync(file, "utf8");
  return { uri: vscode.Uri.file(file), languageId, getText: () => text };
}

/** Wait until the client has received the diagnostics of each of `uris`. @param {any} client @param {string[]} uris */
async function diagnosed(client, uris) {
  const seen = () => uris.every((u) => client.diagnostics.some((/** @type {any} */ d) => d.uri === u));
  while (!seen()) await once(client.received, "textDocument/publishDiagnostics");
}

test("the server from the settings serves the markdown files and its status is shown", { timeout: 120_000 }, async (t) => {
  assert.ok(command && project, "run by tests/lsp/test_vscode.py");
  // A failed assertion leaves servers running: end them, or node would wait for them.
  t.after(() => {
    for (const client of made) client.kill();
  });
  const discussion = document(path.join(project, "discussions", "feature.md"), "markdown");
  const notes = document(path.join(project, "notes.md"), "markdown");
  const plain = document(path.join(project, "notes.txt"), "plaintext");
  vscode.state.documents.push(discussion, notes, plain);
  vscode.state.settings["discussions.server.command"] = command;
  vscode.state.settings["discussions.server.args"] = [...args, "--debounce", "0"];
  vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(project) }];
  vscode.window.activeTextEditor = { document: discussion };
  /** @type {any[]} */
  const subscriptions = [];

  await extension.activate({ subscriptions });
  const [client] = made;
  assert.deepEqual(client.serverOptions, {
    command,
    args: [...args, "--debounce", "0"],
    options: { cwd: project },
  });
  assert.deepEqual(client.clientOptions.documentSelector, [{ scheme: "file", language: "markdown" }]);
  assert.deepEqual(client.opened, [discussion.uri.toString(), notes.uri.toString()]);

  const statuses = /** @type {any[]} */ ([]);
  client.received.on("discussions/status", (/** @type {any} */ p) => statuses.push(p));
  await diagnosed(client, client.opened);
  assert.deepEqual(statuses.map((p) => p.uri), [discussion.uri.toString()]);
  const [item] = vscode.state.items;
  assert.equal(item.visible, true);
  assert.equal(item.text, `$(comment-discussion) ${statuses[0].text}`);
  assert.match(item.text, /waiting for @security/);
  assert.deepEqual(item.command.command, "discussions.status");
  assert.deepEqual(item.command.arguments, [discussion.uri.toString()]);

  await vscode.state.changeEditor.fire({ document: notes });
  assert.equal(item.visible, false, "a file that is not a discussion has no status");
  await vscode.state.changeEditor.fire({ document: discussion });
  assert.equal(item.visible, true);

  // A changed command starts a new server with it; the old one is stopped.
  vscode.state.settings["discussions.server.args"] = [...args, "--debounce", "0.01"];
  const exited = once(client.process, "exit");
  await vscode.state.changeConfiguration.fire({ affectsConfiguration: (/** @type {string} */ s) => s === "discussions.server" });
  await exited;
  assert.equal(made.length, 2);
  assert.deepEqual(made[1].serverOptions.args, [...args, "--debounce", "0.01"]);
  await diagnosed(made[1], made[1].opened);
  assert.equal(item.visible, true);

  vscode.window.activeTextEditor = { document: discussion };
  await vscode.state.closeDocument.fire(discussion);
  assert.equal(item.visible, false, "a closed discussion's status is forgotten");

  const stopped = once(made[1].process, "exit");
  await extension.deactivate();
  await stopped;
});
