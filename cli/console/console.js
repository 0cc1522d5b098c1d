"use strict";
// The approval console's page: lists the pending asks and posts answers.
// Every request carries the token in a header; data is put in the page as
// text only, never as markup.
(function () {
  var token = new URLSearchParams(window.location.search).get("token") || "";
  var asks = [];
  var selected = 0;
  var shownIds = "";
  var statusEl = document.getElementById("status");
  var listEl = document.getElementById("asks");
  var logEl = document.getElementById("log");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function meta(ask) {
    var dl = el("dl", "meta");
    var rows = [["agent", ask.agent], ["session", ask.session], ["tool", ask.tool],
      ["workspace", ask.workspace], ["cwd", ask.cwd], ["preset", ask.preset],
      ["request", ask.request]];
    rows.forEach(function (r) {
      if (r[1] === null || r[1] === undefined) return;
      dl.appendChild(el("dt", "", r[0]));
      dl.appendChild(el("dd", "", r[1]));
    });
    return dl;
  }

  function opsTable(ask) {
    var t = el("table", "ops");
    var head = el("tr");
    ["decision", "operation", "target", "rule", "what approving grants"].forEach(function (h) {
      head.appendChild(el("th", "", h));
    });
    t.appendChild(head);
    (ask.ops || []).forEach(function (op) {
      var tr = el("tr");
      tr.appendChild(el("td", "decision " + op.decision, op.decision));
      tr.appendChild(el("td", "", op.op));
      var target = el("td", "target", op.target);
      if (op.detail) target.appendChild(el("div", "grant", op.detail));
      tr.appendChild(target);
      var rule = el("td", "", op.rule || "");
      if (op.reason && op.decision !== "allow") rule.appendChild(el("div", "grant", op.reason));
      tr.appendChild(rule);
      var grant = op.decision === "deny" ? "denied outright: no approval allows it"
        : op.decision === "ask" ? (op.grant || "") + (op.grant_reason ? ": " + op.grant_reason : "")
        : "";
      tr.appendChild(el("td", "grant", grant));
      t.appendChild(tr);
    });
    return t;
  }

  function diffBlock(text) {
    var pre = el("pre", "diff");
    text.split("\n").forEach(function (line) {
      var cls = line.startsWith("+") && !line.startsWith("+++") ? "add"
        : line.startsWith("-") && !line.startsWith("---") ? "del" : "";
      pre.appendChild(el("span", cls, line + "\n"));
    });
    return pre;
  }

  function card(ask, i) {
    var div = el("section", "card" + (i === selected ? " selected" : ""));
    div.id = "ask-" + ask.id;
    div.setAttribute("aria-label", "ask " + (i + 1));
    div.appendChild(el("h2", "", "Ask " + (i + 1) + ": " + (ask.request || "")));
    div.appendChild(meta(ask));
    div.appendChild(opsTable(ask));
    if (ask.diff) div.appendChild(diffBlock(ask.diff));
    var buttons = el("div", "buttons");
    [["once", "Approve once"], ["deny", "Deny"], ["session", "Approve for the session"]]
      .forEach(function (b) {
        var button = el("button", b[0], b[1]);
        button.type = "button";
        button.dataset.answer = b[0];
        button.addEventListener("click", function () { answer(ask, b[0], div); });
        buttons.appendChild(button);
      });
    var remember = el("button", "project", "Remember for the project…");
    remember.type = "button";
    remember.dataset.answer = "project";
    remember.addEventListener("click", function () { preview(ask, div); });
    buttons.appendChild(remember);
    div.appendChild(buttons);
    div.appendChild(el("div", "change"));
    div.appendChild(el("div", "result"));
    div.addEventListener("click", function () { select(i); });
    return div;
  }

  // What was answered stays listed after its ask leaves the page.
  function note(text) {
    var li = el("li", "", text);
    logEl.insertBefore(li, logEl.firstChild);
  }

  function render() {
    listEl.textContent = "";
    if (!asks.length) {
      listEl.appendChild(el("p", "empty", "No pending asks."));
      return;
    }
    asks.forEach(function (ask, i) { listEl.appendChild(card(ask, i)); });
  }

  function select(i) {
    if (!asks.length) return;
    selected = Math.max(0, Math.min(asks.length - 1, i));
    Array.prototype.forEach.call(listEl.querySelectorAll(".card"), function (c, k) {
      c.classList.toggle("selected", k === selected);
    });
    var b = listEl.querySelectorAll(".card")[selected].querySelector("button");
    if (b) b.focus();
  }

  function answer(ask, word, div) {
    var result = div.querySelector(".result");
    div.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    fetch("/api/answer", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Cordon-Token": token },
      body: JSON.stringify({ id: ask.id, digest: ask.digest, answer: word }),
      cache: "no-store", credentials: "omit"
    }).then(function (r) {
      return r.json().then(function (j) { return { ok: r.ok, j: j }; });
    }).then(function (res) {
      result.textContent = res.ok ? "answered: " + word : "refused: " + (res.j.error || "error");
      div.dataset.answered = res.ok ? word : "refused";
      note(result.textContent + " (" + (ask.request || ask.id) + ")");
    }).catch(function (e) {
      result.textContent = "refused: " + e;
      note(result.textContent);
    });
  }

  function post(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Cordon-Token": token },
      body: JSON.stringify(body), cache: "no-store", credentials: "omit"
    }).then(function (r) {
      return r.json().then(function (j) { return { ok: r.ok, j: j }; });
    });
  }

  // "Remember for the project": the exact change is shown first; the
  // confirm carries its digest, so only what was shown is written.
  function preview(ask, div) {
    var box = div.querySelector(".change");
    var result = div.querySelector(".result");
    box.textContent = "";
    post("/api/remember", { id: ask.id, digest: ask.digest }).then(function (res) {
      if (!res.ok) {
        result.textContent = "cannot remember: " + (res.j.error || "error");
        return;
      }
      box.appendChild(el("p", "", "This change is written into " + res.j.file +
        " (review it there, or revert it with your version control):"));
      box.appendChild(diffBlock(res.j.diff));
      var yes = el("button", "confirm", "Write it, and approve this call once");
      yes.type = "button";
      yes.addEventListener("click", function () { confirm(ask, div, res.j); });
      var no = el("button", "cancel", "Cancel");
      no.type = "button";
      no.addEventListener("click", function () { box.textContent = ""; });
      box.appendChild(yes);
      box.appendChild(no);
      yes.focus();
    }).catch(function (e) { result.textContent = "cannot remember: " + e; });
  }

  function confirm(ask, div, change) {
    var result = div.querySelector(".result");
    div.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    post("/api/remember/confirm", { id: ask.id, digest: ask.digest, change: change.change })
      .then(function (res) {
        result.textContent = res.ok ? "remembered in " + res.j.file + ", approved once"
          : "refused: " + (res.j.error || "error");
        div.dataset.answered = res.ok ? "project" : "refused";
        note(result.textContent + " (" + (ask.request || ask.id) + ")");
      }).catch(function (e) {
        result.textContent = "refused: " + e;
        note(result.textContent);
      });
  }

  function refresh() {
    fetch("/api/asks", { headers: { "X-Cordon-Token": token }, cache: "no-store",
      credentials: "omit" })
      .then(function (r) {
        if (!r.ok) throw new Error("the console refused: HTTP " + r.status);
        return r.json();
      })
      .then(function (list) {
        var ids = list.map(function (a) { return a.id; }).join(",");
        statusEl.textContent = list.length + " pending ask" + (list.length === 1 ? "" : "s");
        if (ids === shownIds) return;
        shownIds = ids;
        asks = list;
        if (selected >= asks.length) selected = 0;
        render();
      })
      .catch(function (e) { statusEl.textContent = String(e.message || e); });
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || !asks.length) return;
    var card = listEl.querySelectorAll(".card")[selected];
    var pick = { a: "once", d: "deny", s: "session" }[ev.key];
    if (ev.key === "j") select(selected + 1);
    else if (ev.key === "k") select(selected - 1);
    else if (pick && card && !card.dataset.answered) answer(asks[selected], pick, card);
    else if (ev.key === "p" && card && !card.dataset.answered) preview(asks[selected], card);
  });

  refresh();
  window.setInterval(refresh, 1000);
})();
