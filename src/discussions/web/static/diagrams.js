// discussions web view: draws each ```mermaid figure with mermaid.js (served from this origin,
// /static/mermaid.min.js, loaded before this file), on the page and as comments arrive live.
// The figure's source stays one click away in its <details>. Nothing external is loaded.
// Mermaid's API as documented (mermaid.js.org, config/usage; the render method): initialize()
// with startOnLoad false, then `await mermaid.render(id, text)` resolves to { svg, ... } and
// rejects on a diagram it cannot parse; securityLevel "strict" sanitizes labels.
"use strict";

(function () {
  const mermaid = window.mermaid;
  if (!mermaid) return;
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  // "strict": labels are sanitized and no script or click handler in a diagram runs.
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
  let count = 0;

  async function draw(figure) {
    if (figure.dataset.drawn) return;
    figure.dataset.drawn = "drawing";
    const code = figure.querySelector("details.diagram-source code");
    const picture = figure.querySelector(".diagram-picture");
    if (!code || !picture) return;
    const id = `diagram-${++count}`;
    try {
      const { svg } = await mermaid.render(id, code.textContent);
      picture.innerHTML = svg;
      figure.dataset.drawn = "svg";
      const details = figure.querySelector("details.diagram-source");
      if (details) details.open = false;
    } catch (err) {
      figure.dataset.drawn = "error";
      const note = document.createElement("p");
      note.className = "diagram-note";
      note.textContent = `Not drawn: ${err && err.message ? err.message.split("\n")[0] : err}`;
      figure.insertBefore(note, picture.nextSibling);
      const stray = document.getElementById("d" + id); // what mermaid leaves on an error
      if (stray) stray.remove();
    }
  }

  function drawAll(root) {
    root.querySelectorAll("figure.diagram-mermaid:not([data-drawn])").forEach((f) => { draw(f); });
  }

  drawAll(document);
  // Comments arrive rendered by the server (app.js inserts them): draw theirs too.
  new MutationObserver(() => drawAll(document)).observe(document.body, {
    childList: true,
    subtree: true,
  });
})();
