// A stand-in for vscode-languageclient's `LanguageClient`, which needs a running VS Code: it
// starts the server exactly as the extension's options say (command, arguments, folder), speaks
// the protocol with vscode-jsonrpc (the library the real client uses), opens the documents its
// selector accepts, and hands the server's notifications to the handlers the extension gave.
"use strict";

const { spawn } = require("node:child_process");
const { EventEmitter } = require("node:events");
const rpc = require("vscode-jsonrpc/node");
const vscode = require("vscode");

/** Every client made, newest last. */
const made = [];

/** Whether `document` is one the selector hands to the server (the fields the extension uses).
 * @param {any[]} selector @param {any} document */
function selects(selector, document) {
  return selector.some(
    (s) =>
      (!s.language || s.language === document.languageId) &&
      (!s.scheme || s.scheme === document.uri.scheme),
  );
}

class LanguageClient {
  /** @param {string} id @param {string} name @param {any} serverOptions @param {any} clientOptions */
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions });
    /** @type {Map<string, Function>} */
    this.handlers = new Map();
    /** @type {any[]} the publishDiagnostics parameters received */
    this.diagnostics = [];
    /** @type {string[]} the URIs opened in the server */
    this.opened = [];
    /** emits each notification's method and parameters after the extension's handler ran */
    this.received = new EventEmitter();
    made.push(this);
  }

  onNotification(/** @type {string} */ method, /** @type {Function} */ handler) {
    this.handlers.set(method, handler);
  }

  async start() {
    const { command, args, options } = this.serverOptions;
    this.process = spawn(command, args, { cwd: options.cwd, stdio: ["pipe", "pipe", "inherit"] });
    this.connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(this.process.stdout),
      new rpc.StreamMessageWriter(this.process.stdin),
    );
    for (const [method, handler] of this.handlers) {
      this.connection.onNotification(method, (/** @type {any} */ params) => {
        handler(params);
        this.received.emit(method, params);
      });
    }
    this.connection.onNotification("textDocument/publishDiagnostics", (/** @type {any} */ p) => {
      this.diagnostics.push(p);
      this.received.emit("textDocument/publishDiagnostics", p);
    });
    this.connection.listen();
    const root = options.cwd ? vscode.Uri.file(options.cwd).toString() : null;
    await this.connection.sendRequest("initialize", { processId: process.pid, rootUri: root, capabilities: {} });
    await this.connection.sendNotification("initialized", {});
    for (const document of vscode.workspace.textDocuments) {
      if (!selects(this.clientOptions.documentSelector, document)) continue;
      const uri = document.uri.toString();
      const item = { uri, languageId: document.languageId, version: 1, text: document.getText() };
      await this.connection.sendNotification("textDocument/didOpen", { textDocument: item });
      this.opened.push(uri);
    }
  }

  /** End the server at once (after a failed test): its process and the pipes to it. */
  kill() {
    this.connection?.dispose();
    for (const stream of [this.process?.stdin, this.process?.stdout]) stream?.destroy();
    this.process?.kill();
  }

  async stop() {
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    await this.connection.sendRequest("shutdown");
    await this.connection.sendNotification("exit");
    await exited;
    this.connection.dispose();
  }
}

module.exports = { LanguageClient, made };
