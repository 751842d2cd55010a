// The live page of an enforcer session. WORDS (prepended by the server)
// holds the methods and the words Describe uses, so the page and
// Notification.Describe say the same. Everything from the stream is put in
// the page with textContent, never as markup.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const main = $("turns"), conn = $("conn"), announce = $("announce");
  const seen = new Set(); // viewCursors shown: a resumed stream shows nothing twice
  const turns = new Map(); // turnId -> its view

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  const str = (v) => (typeof v === "string" ? v : "");
  const num = (v) => (typeof v === "number" && isFinite(v) ? v : 0);

  // The countdown, as Describe renders it: the recorded delay minus the
  // time since the notification arrived, rounded up to whole seconds.
  function countdown(delayMs, elapsedMs) {
    const left = Math.max(0, delayMs) - Math.max(0, elapsedMs);
    return left <= 0 ? "retrying now" : "retrying in " + Math.ceil(left / 1000) + "s";
  }
  // word is the words of key k in table, "" when it has none: only the
  // table's own entries count, so a kind from the stream such as
  // "constructor" finds nothing rather than a member every object has.
  const word = (table, k) => (typeof k === "string" && Object.prototype.hasOwnProperty.call(table, k) ? table[k] : "");
  const errorWords = (k) => word(WORDS.errorKind, k) || WORDS.fallback.errorKind;
  const stageWords = (s) => (s === "json-parse" || s === "schema-validate" || s === "degenerate" ? s : "output contract");
  // member is a frame's union member when it is a member's name, else "".
  const member = (p) => (typeof p.member === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(p.member) ? p.member : "");
  // rejected begins a ledger event's line, as the Go side's rejected does.
  function rejected(p) {
    const line = (word(WORDS.kindSubject, p.kind) || "output") + " rejected (" + stageWords(p.stage) + ")";
    return member(p) ? line + " · member " + member(p) : line;
  }
  // of is what a row's answer was, under its stage: its kind, the union
  // member it named.
  function of(p) {
    const s = [];
    if (str(p.kind)) s.push(p.kind);
    if (member(p)) s.push("member " + member(p));
    return s.join(" · ");
  }
  function retryLine(p, delay, why) {
    return "attempt " + num(p.attempt) + "/" + num(p.maxAttempts) + " · " + delay + " · " + why;
  }
  const retryWhy = (m, p) => (m === WORDS.method.modelRetry ? errorWords(str(p.errorKind)) : str(p.reason) || WORDS.fallback.reason);

  // exhaustedWhy is why an exhausted answer stands, as SchemaExhausted's
  // Describe says it.
  function exhaustedWhy(p) {
    if (str(p.brokenBy)) return "broken by " + p.brokenBy;
    const r = str(p.reason);
    if (!r) return "no retries left";
    return word(WORDS.exhaustReason, r) || "answer stands";
  }
  // tokens is a row's tokens, "" when unknown (zero is left off the wire).
  function tokens(p) {
    const i = num(p.inputTokens), o = num(p.outputTokens);
    return i || o ? "in " + i + " · out " + o : "";
  }

  // ruleName is a rule's name as RulesJudged's Describe shows it.
  const ruleName = (r) => (typeof r === "string" && /^[A-Za-z0-9 _.:\/-]{1,64}$/.test(r) ? r : "(unnamed)");
  const verdicts = ["passed", "failed", "tripped", "fixed", "warned"];
  const verdict = (v) => (verdicts.includes(v) ? v : "judged");
  const rulings = (p) => (Array.isArray(p.rules) ? p.rules.filter((r) => r && typeof r === "object") : []);
  const ruledWhat = (p) => (num(p.attempt) ? "answer " + num(p.attempt) : "the input");
  // rulesLine is RulesJudged's Describe.
  function rulesLine(p) {
    const rs = rulings(p);
    let line = "rules on " + ruledWhat(p);
    for (let i = 0; i < rs.length; i++) {
      if (i === 4) {
        line += " · " + (rs.length - i) + " more";
        break;
      }
      line += " · " + ruleName(rs[i].rule) + " " + verdict(rs[i].verdict);
    }
    return line;
  }

  // describe is Notification.Describe.
  function describe(m, p, elapsedMs) {
    const M = WORDS.method;
    switch (m) {
      case M.turnStarted: return "turn started";
      case M.turnUnqueued: return "turn unqueued";
      case M.turnRetry:
      case M.modelRetry:
        return retryLine(p, countdown(num(p.retryDelayMs), elapsedMs), retryWhy(m, p));
      case M.schemaRetry: {
        const n = num(p.retriesRemaining);
        const left = n <= 0 ? "last retry" : n === 1 ? "1 retry left" : n + " retries left";
        return rejected(p) + " · asking again · " + left;
      }
      case M.schemaExhausted:
        return rejected(p) + " · " + exhaustedWhy(p);
      case M.rulesJudged:
        return rulesLine(p);
      case M.toolCallRejected: {
        const tool = /^[A-Za-z0-9_-]{1,64}$/.test(str(p.tool)) ? p.tool : "(unnamed)";
        const why = str(p.outcome) !== "exhausted" ? "asking again" : str(p.reason) === "repeated" ? "same issues again" : "run stopped";
        return "tool call " + tool + " rejected (" + stageWords(p.stage) + ") · " + why;
      }
      case M.turnCompleted: {
        const t = str(p.terminal);
        if (t === "completed" || t === "cancelled") return "turn " + t;
        if (t === "failed") {
          const w = p.error && word(WORDS.failureKind, p.error.kind);
          return w ? "turn failed · " + w : "turn failed";
        }
        return "turn ended";
      }
    }
    return m;
  }

  function seconds(ms) {
    return ms % 1000 === 0 ? ms / 1000 + "s" : (ms / 1000).toFixed(1) + "s";
  }

  // turn returns the view of turn id, making it on first sight.
  function turn(id) {
    let t = turns.get(id);
    if (t) return t;
    const n = turns.size + 1;
    const art = el("article", "turn");
    art.setAttribute("aria-labelledby", "turn-h-" + n);
    const head = el("header");
    const h = el("h2");
    h.id = "turn-h-" + n;
    h.append("Turn ", el("code", "", id));
    const state = el("span", "state running", "running");
    head.append(h, state);
    const now = el("p", "now");
    const retriesH = el("h3", "", "Retries");
    const retries = el("ol", "retries");
    retriesH.hidden = retries.hidden = true;
    const rulesH = el("h3", "", "Rules");
    const rules = el("ol", "rules");
    rulesH.hidden = rules.hidden = true;
    const wrap = el("div", "scroll");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", "Attempts of turn " + id);
    const table = el("table", "attempts");
    table.append(el("caption", "", "Attempts"));
    const thead = el("thead"), hr = el("tr");
    for (const c of ["Attempt", "Outcome", "Stage", "Pointer", "Corrective hash", "Broken by", "Tokens", "Message"]) {
      const th = el("th", "", c);
      th.scope = "col";
      hr.append(th);
    }
    thead.append(hr);
    const tbody = el("tbody"), tfoot = el("tfoot");
    tfoot.hidden = true;
    table.append(thead, tbody, tfoot);
    wrap.append(table);
    wrap.hidden = true;
    const outcome = el("dl", "outcome");
    outcome.hidden = true;
    art.append(head, now, retriesH, retries, wrap, rulesH, rules, outcome);
    $("empty").hidden = true;
    main.append(art);
    t = { id, state, now, retriesH, retries, rulesH, rules, wrap, tbody, tfoot, outcome, rows: [], last: null, ended: false };
    turns.set(id, t);
    return t;
  }

  function setState(t, s) {
    t.state.className = "state " + s;
    t.state.textContent = s;
  }

  function addRow(t, r) {
    t.rows.push(r);
    const tr = el("tr");
    const th = el("th", "", r.attempt);
    th.scope = "row";
    tr.append(th, el("td", r.outcome, r.why ? r.outcome + " · " + r.why : r.outcome), el("td", "stage", r.stage),
      el("td", "", ""), el("td", "", ""), el("td", "", r.brokenBy), el("td", "tokens", r.tokens), el("td", "msg", r.error));
    if (r.of) tr.children[2].append(" ", el("span", "of", r.of)); // a line of its own: see style.css
    tr.children[3].append(el("code", "", r.path));
    tr.children[4].append(el("code", "", r.hash));
    t.tbody.append(tr);
    t.wrap.hidden = false;
  }

  function addRetry(t, m, p) {
    const li = el("li");
    const model = m === WORDS.method.modelRetry;
    let kind = "turn retry";
    if (model) kind = "model retry";
    else if (p.retryKind === "corrective") kind = "corrective retry";
    else if (p.retryKind === "turn") kind = "whole-turn retry";
    let text = retryLine(p, "after " + seconds(num(p.retryDelayMs)), retryWhy(m, p));
    if (model && num(p.httpStatus)) text += " · HTTP " + num(p.httpStatus);
    if (model && str(p.system)) text += " · " + p.system;
    li.append(el("span", "kind", kind), " · " + text);
    t.retries.append(li);
    t.retries.hidden = t.retriesH.hidden = false;
  }

  // addRules lists each rule's verdict on an answer or the input: its
  // name and verdict, where and why, and what a judge spent.
  function addRules(t, p) {
    for (const r of rulings(p)) {
      const li = el("li");
      let text = " · " + verdict(r.verdict);
      if (str(r.path)) text += " at " + r.path;
      if (str(r.reason)) text += ": " + r.reason;
      const spent = tokens(r);
      if (spent) text += " · " + (str(r.model) ? r.model + " " : "") + spent;
      li.append(ruledWhat(p) + " · ", el("span", "kind", str(r.rule)), text);
      t.rules.append(li);
    }
    t.rules.hidden = t.rulesH.hidden = !t.rules.childElementCount;
  }

  function addOutcome(t, p) {
    const add = (k, v) => {
      if (v === "" || v === undefined) return;
      t.outcome.append(el("dt", "", k), el("dd", "", v));
    };
    add("Outcome", str(p.terminal));
    if (p.error && typeof p.error === "object") {
      add("Failure", word(WORDS.failureKind, p.error.kind) || str(p.error.kind));
      add("Message", str(p.error.message));
      add("Retryable", p.error.retryable ? "yes" : "no");
    }
    add("Reason", str(p.reason));
    if (num(p.durationMs)) add("Duration", seconds(num(p.durationMs)));
    if (num(p.timeToFirstTokenMs)) add("First token after", seconds(num(p.timeToFirstTokenMs)));
    t.outcome.hidden = false;
    const u = p.usage;
    if (!u || typeof u !== "object") return; // tokens unknown: nothing shown
    const tokens = "in " + num(u.inputTokens) + " · out " + num(u.outputTokens) +
      " · cached " + num(u.cachedTokens) + " · reasoning " + num(u.reasoningTokens);
    if (!t.rows.length) {
      add("Tokens", tokens);
      return;
    }
    // Usage is the turn's, summed over its model calls: one footer row.
    const tr = el("tr"), th = el("th", "", "Tokens");
    th.scope = "row";
    const td = el("td", "", tokens + " (the turn's total)");
    td.colSpan = 7;
    tr.append(th, td);
    t.tfoot.append(tr);
    t.tfoot.hidden = false;
  }

  function say(line) {
    announce.append(el("p", "", line));
    while (announce.childElementCount > 5) announce.firstElementChild.remove();
  }

  function onFrame(ev) {
    let frame;
    try {
      frame = JSON.parse(ev.data);
    } catch (e) {
      return;
    }
    const m = str(frame && frame.method), p = (frame && typeof frame.params === "object" && frame.params) || {};
    if (ev.lastEventId) lastId = ev.lastEventId;
    const cursor = str(p.viewCursor) || ev.lastEventId;
    if (cursor) {
      if (seen.has(cursor)) return;
      seen.add(cursor);
    }
    if (str(p.sessionId)) $("session").textContent = p.sessionId;
    const t = turn(str(p.turnId));
    if (t.ended) return; // a turn ends once; anything later is not its state
    const M = WORDS.method;
    t.last = { m, p, at: performance.now() };
    switch (m) {
      case M.turnStarted: setState(t, "running"); break;
      case M.turnRetry:
      case M.modelRetry:
        setState(t, "retrying");
        addRetry(t, m, p);
        break;
      case M.rulesJudged:
        addRules(t, p);
        break;
      case M.schemaRetry:
        setState(t, "running");
        addRow(t, { attempt: num(p.attempt), outcome: "retried", why: "", stage: str(p.stage), kind: str(p.kind), of: of(p), path: str(p.path),
          hash: str(p.correctiveMessageHash), brokenBy: "", tokens: tokens(p), error: str(p.error) });
        break;
      case M.schemaExhausted:
        addRow(t, { attempt: num(p.attempt), outcome: "exhausted", why: str(p.brokenBy) ? "" : exhaustedWhy(p),
          stage: str(p.stage), kind: str(p.kind), of: of(p), path: str(p.path), hash: "", brokenBy: str(p.brokenBy), tokens: tokens(p), error: str(p.error) });
        break;
      case M.turnCompleted:
      case M.turnUnqueued: {
        t.ended = true;
        const terminal = m === M.turnUnqueued ? "unqueued" : str(p.terminal) || "ended";
        setState(t, terminal);
        const lastRow = t.rows[t.rows.length - 1];
        if (terminal === "completed" && lastRow && lastRow.outcome === "retried") {
          // The answer after the last corrective turn passed: the turn
          // completed and no exhausted row came. It is of the run's kind;
          // the member it chose is not on the stream.
          addRow(t, { attempt: lastRow.attempt + 1, outcome: "passed", why: "", stage: "", kind: lastRow.kind, of: lastRow.kind,
            path: "", hash: "", brokenBy: "", tokens: "", error: "" });
        }
        if (m === M.turnCompleted) addOutcome(t, p);
        break;
      }
    }
    render(t);
    say("Turn " + t.id + ": " + t.now.textContent);
  }

  function render(t) {
    if (!t.last) return;
    const line = describe(t.last.m, t.last.p, performance.now() - t.last.at);
    if (t.now.textContent !== line) t.now.textContent = line;
    const retry = !t.ended && (t.last.m === WORDS.method.turnRetry || t.last.m === WORDS.method.modelRetry);
    t.now.className = retry ? "now retry" : "now";
  }

  setInterval(() => {
    for (const t of turns.values()) if (!t.ended && t.last) render(t);
  }, 250);

  // EventSource reconnects by itself after a dropped connection, sending
  // the last id it saw as Last-Event-ID; the server resumes after it. When
  // the server refuses the resume, EventSource gives up; the page then asks
  // why. 410 Gone: the cursor is from another history of the log, so the
  // page clears what it shows and follows the stream from its start. Any
  // other answer (503: the stream has closed) ends it.
  let es, lastId = "";
  const url = location.pathname + location.search;
  function connect() {
    es = new EventSource(url);
    for (const m of Object.values(WORDS.method)) es.addEventListener(m, onFrame);
    es.onmessage = onFrame;
    es.onopen = () => {
      conn.textContent = "live";
      conn.className = "conn live";
    };
    es.onerror = () => {
      const closed = es.readyState === EventSource.CLOSED;
      conn.textContent = closed ? "the stream has ended" : "reconnecting…";
      conn.className = "conn down";
      if (closed && lastId) whyClosed();
    };
  }
  async function whyClosed() {
    const ask = new AbortController();
    let status = 0;
    try {
      const r = await fetch(url, { headers: { Accept: "text/event-stream", "Last-Event-ID": lastId }, cache: "no-store", signal: ask.signal });
      status = r.status;
    } catch (e) {
      return;
    } finally {
      ask.abort(); // a stream that answers is not read here
    }
    if (status !== 410) return;
    for (const t of turns.values()) t.state.closest("article").remove();
    turns.clear();
    seen.clear();
    lastId = "";
    $("session").textContent = "…";
    $("empty").hidden = false;
    conn.textContent = "starting over: the log was rewritten";
    connect();
  }
  connect();
})();
