// The part of the `vscode` API the extension uses, recorded so a test can look at it: the
// settings, the workspace folder, the open documents, the active editor and the status bar.
"use strict";

const { pathToFileURL } = require("node:url");

class Uri {
  /** @param {string} text */
  constructor(text) {
    this.text = new URL(text).href;
    this.fsPath = decodeURIComponent(new URL(text).pathname);
    this.scheme = new URL(text).protocol.slice(0, -1);
  }
  static parse(/** @type {string} */ text) {
    return new Uri(text);
  }
  static file(/** @type {string} */ path) {
    return new Uri(pathToFileURL(path).href);
  }
  toString() {
    return this.text;
  }
}

/** Listeners of one event, and the function that registers them (VS Code's `Event`). */
function emitter() {
  /** @type {Function[]} */
  const listeners = [];
  const event = (/** @type {Function} */ listener) => {
    listeners.push(listener);
    return { dispose: () => listeners.splice(listeners.indexOf(listener), 1) };
  };
  const fire = async (/** @type {any} */ value) => {
    for (const listener of [...listeners]) await listener(value);
  };
  return { event, fire };
}

const state = {
  /** @type {Record<string, any>} the `discussions` settings */
  settings: {},
  /** @type {any[]} every status bar item made */
  items: [],
  /** @type {any[]} the open documents: `{ uri, languageId, version, getText() }` */
  documents: [],
  changeEditor: emitter(),
  closeDocument: emitter(),
  changeConfiguration: emitter(),
};

const window = {
  /** @type {any} */
  activeTextEditor: undefined,
  createStatusBarItem(/** @type {number} */ alignment, /** @type {number} */ priority) {
    const item = {
      alignment, priority, text: "", tooltip: "", command: undefined, visible: false,
      show() { item.visible = true; },
      hide() { item.visible = false; },
      dispose() { item.visible = false; },
    };
    state.items.push(item);
    return item;
  },
  onDidChangeActiveTextEditor: state.changeEditor.event,
};

const workspace = {
  /** @type {any[] | undefined} */
  workspaceFolders: undefined,
  getConfiguration(/** @type {string} */ section) {
    return {
      get: (/** @type {string} */ key, /** @type {any} */ fallback) => {
        const value = state.settings[`${section}.${key}`];
        return value === undefined ? fallback : value;
      },
    };
  },
  get textDocuments() {
    return state.documents;
  },
  onDidCloseTextDocument: state.closeDocument.event,
  onDidChangeConfiguration: state.changeConfiguration.event,
};

module.exports = { Uri, StatusBarAlignment: { Left: 1, Right: 2 }, window, workspace, state };
