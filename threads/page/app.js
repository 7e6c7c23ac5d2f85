// The page of the agview BFF example. It never talks to the agent: it reads
// the service's event stream (GET /threads/{id}/events) and draws one pane
// per invocation, nested as the tree nests. In AG-UI's words a thread is the
// conversation and a run is one request to the agent on it: each message
// sent, or answer given, starts a run. Every string from the stream is
// inserted as text, never as HTML.
"use strict";

(() => {
  const $ = (sel) => document.querySelector(sel);
  // BASE is the prefix the service is mounted at ("" at the root).
  const BASE = (document.querySelector('meta[name="agview-base"]') || {}).content || "";

  // el makes an element with a class and optional text.
  function el(tag, cls, text) {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = text;
    return n;
  }

  function badge(status) {
    return el("span", "badge s-" + status, status);
  }

  // cutOff is the badge of a text or reasoning message abandoned while it
  // streamed (its run errored, its stream broke or was cancelled): the
  // abandoned style of a tool call's badge, saying what happened to the text.
  function cutOff() {
    const b = badge("abandoned");
    b.textContent = "cut off";
    b.title = "abandoned: the message never ended (its run errored, or its stream broke or was cancelled)";
    return b;
  }

  // toolState names a tool call's state: its arguments streaming, called
  // and awaiting a result, answered, or abandoned.
  function toolState(it) {
    if (it.status === "open") return "streaming";
    if (it.status === "abandoned") return "abandoned";
    return it.result !== undefined ? "answered" : "called";
  }

  async function post(url, body) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error || res.status + " " + res.statusText);
    return data;
  }

  // when formats a time the service sent, "" when it sent none.
  function when(t) {
    const d = new Date(t);
    return t && !isNaN(d) ? d.toLocaleString() : "";
  }

  // pretty returns JSON text indented, or the text itself when it is not
  // (yet) valid JSON, as streamed tool arguments are until complete.
  function pretty(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  // contentText shows a tool result: a string as it is, anything else as JSON.
  function contentText(v) {
    if (typeof v === "string") return v;
    if (Array.isArray(v)) {
      const texts = v.filter((p) => p && p.type === "text").map((p) => p.text);
      if (texts.length === v.length) return texts.join("\n");
    }
    return JSON.stringify(v, null, 2);
  }

  // highlight fills node with a JSON value, keys, strings, numbers and
  // literals in spans of their own.
  function highlight(node, value) {
    node.textContent = "";
    const text = JSON.stringify(value, null, 2);
    if (text === undefined) return;
    const re = /("(?:\\.|[^"\\])*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;
    let last = 0;
    for (const m of text.matchAll(re)) {
      node.append(text.slice(last, m.index));
      const cls = m[1] ? (m[2] ? "k" : "s") : m[3] ? "n" : "l";
      node.append(el("span", cls, m[1] || m[3] || m[4]));
      if (m[2]) node.append(m[2]);
      last = m.index + m[0].length;
    }
    node.append(text.slice(last));
  }

  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  const match = path.match(/^\/threads\/([^/]+)$/);
  if (match) {
    watch(decodeURIComponent(match[1]));
  } else {
    home();
  }

  // ---------------------------------------------------------------- home

  function home() {
    $("#home").hidden = false;
    $("#conn").textContent = "idle";
    $("#ask").addEventListener("submit", async (e) => {
      e.preventDefault();
      $("#ask-button").disabled = true;
      try {
        const info = await post(BASE + "/threads", { message: $("#ask-input").value });
        location.assign(info.page);
      } catch (err) {
        $("#conn").textContent = "could not start a thread: " + err.message;
        $("#ask-button").disabled = false;
      }
    });
    fetch(BASE + "/threads")
      .then((r) => r.json())
      .then((page) => {
        const threads = page.threads || [];
        const list = $("#thread-list");
        if (threads.length === 0) list.append(el("li", "hint", "No threads yet."));
        for (const t of threads) {
          const li = el("li");
          const a = el("a", "mono", t.id);
          a.href = t.page;
          li.append(a, " ", badge(t.active ? "running" : t.status || "new"), " ", el("span", "hint", when(t.created)));
          list.append(li);
        }
      });
  }

  // --------------------------------------------------------------- watch

  function watch(id) {
    $("#watch").hidden = false;
    const base = BASE + "/threads/" + encodeURIComponent(id);
    $("#legacy-link").href = base + "/legacy";
    $("#view-link").href = base + "/view";
    $("#legacy-link").hidden = $("#view-link").hidden = false;
    $("#ask-button").textContent = "Send";
    $("#ask-input").placeholder = "Continue the thread…";
    $("#stop").addEventListener("click", async () => {
      try {
        await post(base + "/stop", {});
      } catch (err) {
        $("#conn").textContent = "could not stop the run: " + err.message;
      }
    });

    $("#delete").addEventListener("click", async () => {
      try {
        const res = await fetch(base, { method: "DELETE" });
        if (!res.ok) throw new Error((await res.json().catch(() => ({}))).error || res.statusText);
        location.assign(BASE + "/");
      } catch (err) {
        $("#conn").textContent = "could not delete the thread: " + err.message;
      }
    });

    const panes = new Map(); // pane key -> {el, kids, data, items, nodes}
    let header = null;

    // pane returns a pane's parts, made empty (and hidden) until its data
    // arrives: a child may be announced before its parent's update. The
    // parts stay in place for the pane's life: a pane's update never moves
    // the panes nested in it, so their timelines keep their scroll.
    function pane(key) {
      let p = panes.get(key);
      if (p) return p;
      const node = el("article", "pane pending");
      node.dataset.key = key;
      p = {
        el: node,
        head: el("header", "pane-head"),
        desc: el("p", "pane-desc"),
        steps: el("div", "steps"),
        items: el("div", "items"),
        error: el("p", "pane-error"),
        kids: el("div", "children"),
        above: marker("above"), // "↑ N earlier", shown when scrolled down
        below: marker("below"), // "↓ N more", shown when more is below
        follow: true, // keep the timeline scrolled to its end, until the reader scrolls up
        stuckAt: 0, // where stickSoon last scrolled it
        data: null,
        list: [], // the items, in order
        nodes: new Map(), // item key -> its element
      };
      node.append(p.head, p.desc, p.steps, p.items, p.error, p.kids);
      p.items.append(p.above, p.below);
      // Like a chat log: the timeline follows the latest output; scrolling
      // up stops following, scrolling back to the end follows again.
      // (Content growing under a followed timeline leaves scrollTop where
      // stickSoon put it.)
      p.items.addEventListener("scroll", () => {
        const it = p.items;
        if (it.scrollTop + it.clientHeight >= it.scrollHeight - 8) p.follow = true;
        else if (it.scrollTop < p.stuckAt - 2) p.follow = false;
        markMore(p);
      });
      p.above.addEventListener("click", () => p.items.scrollTo({ top: 0, behavior: "smooth" }));
      p.below.addEventListener("click", () => p.items.scrollTo({ top: p.items.scrollHeight, behavior: "smooth" }));
      panes.set(key, p);
      return p;
    }

    // renderMeta draws a pane's meta (everything but its items) and nests
    // it in its parent.
    function renderMeta(d) {
      const p = pane(d.key);
      p.data = d;
      const n = p.el;
      n.classList.remove("pending");
      n.dataset.id = d.id === null ? "" : d.id;
      n.dataset.status = d.status;
      n.dataset.root = d.root;

      p.head.replaceChildren(el("span", "pane-name", d.root ? "Parent agent" : d.name));
      if (!d.root) p.head.append(el("code", "pane-id", d.id));
      p.head.append(badge(d.status));
      p.desc.textContent = d.description || "";
      p.desc.hidden = !d.description;
      p.steps.replaceChildren(...d.steps.map((s) => el("span", "step " + s.status, s.name)));
      p.steps.hidden = d.steps.length === 0;
      p.error.textContent = d.error ? d.error.message + (d.error.code ? " (" + d.error.code + ")" : "") : "";
      p.error.hidden = !d.error;

      // Nest the pane in its parent, and order the children as started.
      const parent = d.parent === null ? $("#tree") : pane(d.parent).kids;
      if (n.parentElement !== parent) parent.append(n);
      d.children.forEach((k, i) => {
        const c = pane(k).el;
        if (p.kids.children[i] !== c) p.kids.insertBefore(c, p.kids.children[i] || null);
      });
      stickSoon();
    }

    // renderPane draws a pane whole.
    function renderPane(d) {
      const p = pane(d.key);
      const { items, ...meta } = d;
      renderMeta(meta);
      p.list = items;
      p.nodes = new Map(items.map((it) => [it.key, renderItem(it)]));
      p.items.replaceChildren(p.above, ...p.nodes.values(), p.below);
    }

    // applyOps applies a pane patch's item operations (docs/panes.md),
    // redrawing only the items they name.
    function applyOps(p, ops) {
      const at = (key) => p.list.findLastIndex((it) => it.key === key);
      const redraw = (it) => {
        const node = renderItem(it);
        p.nodes.get(it.key).replaceWith(node);
        p.nodes.set(it.key, node);
      };
      for (const op of ops) {
        if (op.put) {
          const i = at(op.put.key);
          if (i >= 0) {
            p.list[i] = op.put;
            redraw(op.put);
            continue;
          }
          let j = p.list.length;
          if (op.after !== undefined) j = op.after === "" ? 0 : at(op.after) + 1;
          p.list.splice(j, 0, op.put);
          const node = renderItem(op.put);
          p.nodes.set(op.put.key, node);
          const next = j + 1 < p.list.length ? p.nodes.get(p.list[j + 1].key) : p.below;
          p.items.insertBefore(node, next);
        } else if (op.del) {
          const i = at(op.del);
          if (i < 0) continue;
          p.list.splice(i, 1);
          p.nodes.get(op.del).remove();
          p.nodes.delete(op.del);
        } else {
          const i = at(op.key);
          if (i < 0) continue;
          const it = { ...p.list[i] };
          if (op.text) it.text = (it.text || "") + op.text;
          if (op.args) it.args = (it.args || "") + op.args;
          if (op.status) it.status = op.status;
          p.list[i] = it;
          redraw(it);
        }
      }
      stickSoon();
    }

    // stickSoon scrolls each following timeline to its end at the next
    // frame, once the panes are laid out.
    let stickPending = false;
    function stickSoon() {
      if (stickPending) return;
      stickPending = true;
      requestAnimationFrame(() => {
        stickPending = false;
        for (const p of panes.values()) {
          if (p.follow) {
            p.items.scrollTop = p.items.scrollHeight;
            p.stuckAt = p.items.scrollTop;
          }
          markMore(p);
        }
      });
    }

    // marker makes the sticky "more above" or "more below" marker of a
    // timeline: it overlays the timeline's top or bottom edge, fading the
    // item cut there, and scrolls to that end when clicked.
    function marker(side) {
      const m = el("div", "more " + side);
      m.append(el("button", "more-label"));
      m.firstChild.type = "button";
      m.hidden = true;
      return m;
    }

    // markMore shows how many items of p's timeline start above its visible
    // part, and how many end below it.
    function markMore(p) {
      const it = p.items;
      const top = it.scrollTop;
      const bottom = top + it.clientHeight;
      let above = 0;
      let below = 0;
      for (const c of it.children) {
        if (c === p.above || c === p.below) continue;
        if (c.offsetTop < top - 1) above++;
        if (c.offsetTop + c.offsetHeight > bottom + 1) below++;
      }
      p.above.hidden = above === 0;
      p.above.firstChild.textContent = "↑ " + above + " earlier";
      p.below.hidden = below === 0;
      p.below.firstChild.textContent = "↓ " + below + " more";
    }

    function renderItem(it) {
      switch (it.kind) {
        case "text": {
          const m = el("div", "msg " + it.role + (it.status === "open" ? " open" : ""));
          m.dataset.id = it.id;
          if (it.status) m.dataset.status = it.status;
          const role = el("span", "role", it.role);
          if (it.status === "abandoned") role.append(cutOff());
          m.append(role, el("div", "text", it.text));
          return m;
        }
        case "reasoning": {
          const r = el("div", "reasoning" + (it.status === "open" ? " open" : ""), it.text);
          r.dataset.id = it.id;
          if (it.status) r.dataset.status = it.status;
          if (it.status === "abandoned") r.prepend(cutOff());
          return r;
        }
        case "tool": {
          const t = el("div", "tool");
          t.dataset.id = it.id;
          const h = el("div", "tool-head");
          h.append(el("span", "", "⚙"), el("code", "tool-name", it.name));
          for (const k of it.subagents || []) {
            const s = el("span", "spawned", "spawned ");
            const a = el("a", "", (pane(k).data && pane(k).data.id) || k);
            a.href = "#";
            a.addEventListener("click", (e) => {
              e.preventDefault();
              pane(k).el.scrollIntoView({ behavior: "smooth", block: "start" });
            });
            s.append(a);
            h.append(s);
          }
          h.append(badge(toolState(it)));
          t.append(h, el("pre", "args", pretty(it.args)));
          if (it.result !== undefined) t.append(el("pre", "result", contentText(it.result)));
          return t;
        }
        case "result": {
          const t = el("div", "tool");
          t.append(el("pre", "result", "result for " + it.toolCallId + ": " + contentText(it.result)));
          return t;
        }
        case "activity": {
          const a = el("div", "activity");
          a.dataset.id = it.id;
          a.append(el("span", "activity-type", it.activityType));
          renderActivity(a, it.content);
          return a;
        }
      }
      return el("div", "", JSON.stringify(it));
    }

    // renderActivity shows an activity's title and its lists of objects as
    // labelled rows with a status; anything else as JSON.
    function renderActivity(node, content) {
      if (!content || typeof content !== "object") {
        node.append(el("pre", "", JSON.stringify(content, null, 2)));
        return;
      }
      let shown = false;
      if (typeof content.title === "string") {
        node.append(el("strong", "", content.title));
        shown = true;
      }
      for (const v of Object.values(content)) {
        if (!Array.isArray(v) || !v.every((x) => x && typeof x === "object")) continue;
        const ul = el("ul");
        for (const x of v) {
          const li = el("li");
          li.append(el("span", "label", x.topic || x.title || x.name || JSON.stringify(x)));
          if (typeof x.status === "string") li.append(badge(x.status));
          ul.append(li);
        }
        node.append(ul);
        shown = true;
      }
      if (!shown) node.append(el("pre", "", JSON.stringify(content, null, 2)));
    }

    function renderHeader(h) {
      header = h;
      const last = h.runs.length ? h.runs[h.runs.length - 1] : null;
      const status = h.active ? "running" : last ? last.status : "new";
      document.body.dataset.active = h.active;
      document.body.dataset.status = status;
      document.title = "agview · " + status;

      const sum = $("#summary");
      const thread = el("span", "count", "thread ");
      thread.append(el("code", "thread-id", id));
      thread.title = "the conversation: the threadId of every run";
      sum.replaceChildren(
        badge(status),
        thread,
        el("span", "count", h.runs.length + " run" + (h.runs.length === 1 ? "" : "s")),
        el("span", "count", h.invocations + " subagent" + (h.invocations === 1 ? "" : "s")),
        el("span", "count", h.violations + " rejected"),
      );
      if (h.error) {
        const e = el("span", "count error", "⚠ " + h.error);
        e.title = h.error;
        sum.append(e);
      }

      $("#runs-thread").textContent = id;
      const runs = $("#runs");
      runs.replaceChildren();
      for (const r of h.runs) {
        const li = el("li");
        li.dataset.runId = r.runId;
        li.append(el("code", "run-id", r.runId), " ", badge(r.status));
        if (r.usage) li.append(" ", el("span", "tokens hint", tokens(r.usage)));
        if (r.error) li.append(" ", el("span", "hint", r.error));
        runs.append(li);
      }
      $("#stop").hidden = !h.active;
      $("#delete").hidden = h.active;

      const box = $("#interrupts");
      box.replaceChildren();
      $("#interrupts-card").hidden = h.pendingInterrupts.length === 0;
      for (const it of h.pendingInterrupts) {
        const d = el("div", "interrupt");
        d.append(el("p", "", it.message || it.reason));
        if (it.subagentRunId) d.append(el("p", "hint mono", "raised by " + it.subagentRunId));
        const btns = el("div", "btns");
        const yes = el("button", "btn", "Approve");
        const no = el("button", "btn secondary", "Reject");
        yes.disabled = no.disabled = h.active;
        yes.onclick = () => answer({ answer: "resolved", payload: { approved: true } });
        no.onclick = () => answer({ answer: "resolved", payload: { approved: false } });
        btns.append(yes, no);
        d.append(btns);
        box.append(d);
      }
      $("#ask-button").disabled = h.active;

      const diags = $("#diagnostics");
      diags.replaceChildren();
      $("#diag-card").hidden = h.diagnostics.length === 0;
      h.diagnostics.forEach((g, i) => {
        if (h.diagnosticsOmitted && i === h.diagnostics.length / 2) {
          diags.append(el("li", "hint", "… " + h.diagnosticsOmitted + " more …"));
        }
        const what = g.type ? "event " + g.index + " (" + g.type + ")" : "event " + g.index;
        diags.append(el("li", g.kind, what + ": " + g.rule + ": " + g.message));
      });
    }

    function renderState(s) {
      highlight($("#state"), s.state);
      $("#state-by").textContent = s.changedBy ? "last changed by " + s.changedBy : "";
    }

    // tokens says how many tokens a run used.
    function tokens(u) {
      const parts = [];
      if (u.input !== undefined) parts.push(u.input + " in");
      if (u.output !== undefined) parts.push(u.output + " out");
      if (u.total !== undefined) parts.push(u.total + " total");
      return parts.length ? "tokens: " + parts.join(", ") : "";
    }

    async function answer(body) {
      try {
        await post(base + "/runs", body);
      } catch (err) {
        $("#conn").textContent = "could not continue: " + err.message;
      }
    }

    $("#ask").addEventListener("submit", (e) => {
      e.preventDefault();
      const message = $("#ask-input").value;
      if (!message) return;
      $("#ask-input").value = "";
      // A new turn: every pane follows the latest output again.
      for (const p of panes.values()) p.follow = true;
      stickSoon();
      answer(header && header.pendingInterrupts.length ? { message, answer: "cancelled" } : { message });
    });

    const es = new EventSource(base + "/events");
    es.addEventListener("snapshot", (e) => {
      const s = JSON.parse(e.data);
      for (const p of panes.values()) p.el.remove();
      panes.clear();
      renderHeader(s.run);
      renderState(s.state);
      for (const p of s.panes) renderPane(p);
    });
    es.addEventListener("patch", (e) => {
      const f = JSON.parse(e.data);
      for (const pp of f.panes || []) {
        if (pp.pane) {
          renderPane(pp.pane);
          continue;
        }
        const p = pane(pp.key);
        if (pp.meta) renderMeta(pp.meta);
        if (pp.ops) applyOps(p, pp.ops);
      }
      if (f.state) renderState(f.state);
      if (f.run) renderHeader(f.run);
    });
    es.onopen = () => {
      $("#conn").textContent = "live";
      $("#conn").className = "conn live";
    };
    es.onerror = () => {
      const closed = es.readyState === EventSource.CLOSED;
      $("#conn").textContent = closed ? "disconnected (reload the page)" : "reconnecting…";
      $("#conn").className = "conn down";
    };
  }
})();
