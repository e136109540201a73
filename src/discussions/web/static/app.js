// discussions web view: follows the discussion file live and sends the page's forms to the
// JSON API. No framework, no external resources; comments arrive already rendered (and
// escaped) by the server.
"use strict";

(function () {
  const meta = (name) => {
    const el = document.querySelector(`meta[name="${name}"]`);
    return el ? el.getAttribute("content") : null;
  };
  const token = meta("discussions-token");
  const file = meta("discussions-file");
  const notice = document.getElementById("notice");

  const say = (text, isError) => {
    if (!notice) return;
    notice.textContent = text;
    notice.className = isError ? "error" : "";
  };

  // A JSON POST with the token; the answer's data, or null after saying what went wrong.
  async function post(url, body) {
    if (!token) {
      say("Read-only: open the address `discussions serve` printed to write.", true);
      return null;
    }
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
        body: JSON.stringify(body || {}),
      });
    } catch (err) {
      say(`The server did not answer: ${err}`, true);
      return null;
    }
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      say(data.error || `Error ${response.status}`, true);
      return null;
    }
    return data;
  }

  // ---------------------------------------------------------------- list page: the filter
  const filter = document.getElementById("filter");
  if (filter) {
    filter.addEventListener("input", () => {
      const needle = filter.value.trim().toLowerCase();
      document.querySelectorAll("#discussions tbody tr").forEach((row) => {
        row.hidden = needle !== "" && !row.textContent.toLowerCase().includes(needle);
      });
    });
  }

  // ---------------------------------------------------------------- list page: a new discussion
  const newForm = document.getElementById("new-form");
  if (newForm) {
    newForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const form = new FormData(newForm);
      const button = document.getElementById("new-button");
      button.disabled = true;
      const data = await post("/api/discussions", {
        title: String(form.get("title") || ""),
        template: String(form.get("template") || "") || null,
        context: String(form.get("context") || "") || null,
      });
      button.disabled = false;
      if (data) {
        say(`Created ${data.file}`);
        location.assign(data.href);
      }
    });
  }
  if (!file) return;

  const api = "/api/discussions/" + encodeURIComponent(file);
  const comments = document.getElementById("comments");
  const stream = document.getElementById("stream");
  const panel = document.getElementById("panel");
  let count = Number(meta("discussions-count") || 0);
  let size = Number(meta("discussions-size") || 0);
  let hash = meta("discussions-hash") || "";

  // ---------------------------------------------------------------- following the file
  function upsert(items) {
    const landed = new Set();
    for (const c of items) {
      const template = document.createElement("template");
      template.innerHTML = c.html.trim();
      // The comment, then the engine's blocks appended after it (cards of their own).
      const nodes = Array.from(template.content.children);
      if (!nodes.length) continue;
      const existing = document.getElementById("L" + c.line);
      if (existing) {
        comments.querySelectorAll(`[data-of="${c.line}"]`).forEach((card) => card.remove());
        existing.replaceWith(...nodes);
      } else comments.append(...nodes);
      landed.add(c.author);
    }
    // A streamed answer is replaced by the comment once it is in the file.
    stream.querySelectorAll("[data-name]").forEach((box) => {
      if (landed.has(box.dataset.name) && box.dataset.state !== "streaming") box.remove();
    });
  }

  function streamBox(data) {
    const key = data.ticket + ":" + data.participant;
    let box = stream.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (!box) {
      box = document.createElement("article");
      box.className = "comment streaming";
      box.dataset.key = key;
      box.dataset.name = data.name || data.participant;
      box.dataset.state = "streaming";
      const header = document.createElement("header");
      const author = document.createElement("span");
      author.className = "author";
      author.textContent = data.name || data.participant;
      const state = document.createElement("span");
      state.className = "meta";
      header.append(author, " ", state);
      const body = document.createElement("pre");
      body.className = "body streamed";
      box.append(header, body);
      stream.appendChild(box);
      // The answers stream above the forms: bring the first one into view.
      if (stream.children.length === 1) stream.scrollIntoView({ block: "start" });
    }
    return box;
  }

  function setState(box, text) {
    box.querySelector("header .meta").textContent = text;
  }

  // One turn or run at a time per discussion (the server refuses a second): the buttons
  // that start one wait for the end of the one going on.
  function busy(on) {
    ["turn-button", "run-button"].forEach((id) => {
      const button = document.getElementById(id);
      if (button) button.disabled = on;
    });
  }

  const said = new Set();
  let source = null;
  function connect() {
    const url = `${api}/events?count=${count}&size=${size}&hash=${encodeURIComponent(hash)}`;
    source = new EventSource(url);
    const on = (name, handler) =>
      source.addEventListener(name, (event) => handler(JSON.parse(event.data)));
    on("comment", (data) => {
      upsert(data.comments);
      count = data.count;
      const shown = document.getElementById("comment-count");
      if (shown) shown.textContent = String(count);
    });
    on("panel", (data) => {
      panel.innerHTML = data.html;
      if (typeof data.size === "number") size = data.size;
      if (data.hash) hash = data.hash;
    });
    on("phase", (data) => {
      const phase = document.getElementById("phase");
      const status = document.getElementById("status");
      if (phase) phase.textContent = data.phase;
      const title = document.getElementById("phase-title");
      if (title) title.textContent = data.phase_title ? " — " + data.phase_title : "";
      if (status) {
        status.textContent = data.status;
        // The class the page was rendered with (status-open, ...) follows the status.
        const kind = String(data.status).toLowerCase().replace(/[^a-z0-9_-]+/g, "-");
        status.className = "status status-" + kind.replace(/^-+|-+$/g, "");
      }
    });
    on("reload", () => location.reload());
    on("turn-start", (data) => {
      busy(true);
      const who = data.participants.join(", ") || "nobody";
      say(data.kind === "run" ? `Run started: ${who}` : `Turn started: ${who}`);
    });
    on("round", (data) => say(`Round ${data.round} (${data.phase}): ${data.order.join(", ")}`));
    on("answer-start", (data) => {
      // A note for the whole turn (no AI CLI installed): once, not per answer.
      if (data.message && !said.has(data.message)) {
        said.add(data.message);
        say(data.message, true);
      }
      const box = streamBox(data);
      box.querySelector(".body").textContent = "";
      box.dataset.state = "streaming"; // a run's next round reuses the box of the last one
      setState(box, `asking ${data.provider || "provider"}…`);
    });
    on("chunk", (data) => {
      const box = streamBox(data);
      const body = box.querySelector(".body");
      if (data.offset === 0) body.textContent = "";
      body.textContent += data.text;
      setState(box, `writing (${data.provider || "provider"})…`);
    });
    on("attempt-failed", (data) => {
      const box = streamBox(data);
      setState(box, `${data.provider} failed: ${data.message || ""}; trying the next provider`);
    });
    on("answer", (data) => {
      const box = streamBox(data);
      const error = data.error;
      box.dataset.state = error ? "failed" : "done";
      setState(box, error ? `failed: ${error}` : data.status === "posted" ? "answered" : "passed");
    });
    on("turn-end", (data) => {
      busy(false);
      if (data.error) say(`The ${data.kind} failed: ${data.error}`, true);
      else if (data.kind === "run" && data.result)
        say(`Run stopped after ${data.result.rounds} round(s): ${data.result.stopped}`);
      else say("Turn finished");
      setTimeout(() => {
        stream.querySelectorAll('[data-state="done"]').forEach((box) => box.remove());
      }, 3000);
    });
    source.addEventListener("error", (event) => {
      if (event.data) {
        say(JSON.parse(event.data).message, true);
        return;
      }
      if (source.readyState === EventSource.CLOSED) {
        // The server went away or refused: try again with what the page shows now.
        setTimeout(connect, 2000);
      }
    });
  }
  connect();

  // ---------------------------------------------------------------- older comments
  // A long discussion's page comes with its newest comments; the older ones are fetched
  // here, already rendered, in place of the link that stands for them (without scripts,
  // that link opens the page with every comment).
  async function loadOlder(older) {
    let data;
    try {
      const response = await fetch(`${api}/comments?before=${older.dataset.before}`);
      if (!response.ok) return;
      data = await response.json();
    } catch (err) {
      return;
    }
    const fragment = document.createDocumentFragment();
    for (const c of data.comments) {
      if (document.getElementById("L" + c.line)) continue;
      const template = document.createElement("template");
      template.innerHTML = c.html.trim();
      fragment.append(...Array.from(template.content.children));
    }
    older.replaceWith(fragment);
    // The panel's links to them now stay on this page.
    document.querySelectorAll('a[href^="?comments=all#"]').forEach((link) => {
      link.setAttribute("href", link.getAttribute("href").replace(/^[^#]*/, ""));
    });
    // Opened at one of them: go there, and again once the comments around it are laid out
    // (they take their real height only when near the screen: `content-visibility`).
    const target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.matches("#comments article")) {
      target.scrollIntoView();
      requestAnimationFrame(() => requestAnimationFrame(() => target.scrollIntoView()));
    }
  }
  const older = document.getElementById("older");
  if (older) loadOlder(older);

  // ---------------------------------------------------------------- forms
  const send = (path, body) => post(api + path, body);

  const author = document.getElementById("author");
  if (author) {
    author.value = localStorage.getItem("discussions.author") || meta("discussions-author") || "";
    author.addEventListener("change", () =>
      localStorage.setItem("discussions.author", author.value.trim())
    );
  }

  const commentForm = document.getElementById("comment-form");
  if (commentForm) {
    commentForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const form = new FormData(commentForm);
      const name = String(form.get("author") || "").trim();
      localStorage.setItem("discussions.author", name);
      const data = await send("/comments", {
        author: name,
        text: String(form.get("text") || ""),
        vote: form.get("vote") || null,
      });
      if (data) {
        commentForm.querySelector("textarea").value = "";
        const none = commentForm.querySelector('input[name="vote"][value=""]');
        if (none) none.checked = true;
        say(data.vote ? `Comment posted with vote ${data.vote}` : "Comment posted");
        (data.notices || []).forEach((n) => say(n, true));
      }
    });
  }

  const turnForm = document.getElementById("turn-form");
  if (turnForm) {
    turnForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const form = new FormData(turnForm);
      const action = event.submitter ? event.submitter.value : "turn";
      const body = {
        participants: form.getAll("participants").map(String),
        callout: String(form.get("callout") || "") || null,
      };
      if (action === "run") body.rounds = Number(form.get("rounds") || 3);
      busy(true);
      const data = await send(action === "run" ? "/runs" : "/turns", body);
      if (data) say(`${action === "run" ? "Run" : "Turn"} ${data.ticket} started`);
      else busy(false);
    });
  }

  const click = (id, handler) => {
    const el = document.getElementById(id);
    if (el) el.addEventListener("click", handler);
  };
  click("advance-button", async () => {
    const data = await send("/advance", {});
    if (data) say(`Advanced to phase: ${data.phase}`);
  });
  click("close-button", async () => {
    const status = document.getElementById("close-status").value;
    const data = await send("/close", { status });
    if (data) say(`Status changed to: ${data.status}`);
  });
  click("reopen-button", async () => {
    const data = await send("/reopen", {});
    if (data) say(`Status changed to: ${data.status}`);
  });
  click("post-button", async (event) => {
    event.target.disabled = true;
    say("Writing a post (an AI participant is asked; this can take a while)…");
    const data = await send("/post", {});
    event.target.disabled = false;
    if (!data) return;
    const blob = new Blob([data.markdown], { type: "text/markdown" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = file.replace(/\.md$/, "") + ".post.md";
    document.body.appendChild(link);
    link.click();
    link.remove();
    say(`Post written by ${data.author}`);
  });
})();
