// Ask page: stream an answer over server-sent events (/api/ask): the retrieved passages
// first (the "sources" event, as soon as the search ends), then the answer; link every
// [#n] to the cited place, show each sentence's verdict as it arrives, open sources
// beside the answer.
// All text goes in through textContent: nothing from the answer is parsed as HTML.
"use strict";
(function () {
  const form = document.getElementById("ask-form");
  const q = document.getElementById("q");
  const btn = document.getElementById("ask-btn");
  const status = document.getElementById("status");
  const answer = document.getElementById("answer");
  const label = document.getElementById("label");
  const verdicts = document.getElementById("verdicts");
  const sources = document.getElementById("sources");
  const pane = document.getElementById("viewer-pane");
  const frame = document.getElementById("viewer");
  const CITE = /\[#(\d+)\]/g;
  let es = null;
  let text = "";
  let cites = new Map(); // n -> {chunk_id, display}
  let verdictOf = new Map(); // sentence text -> verdict

  function el(tag, cls, txt) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (txt !== undefined) e.textContent = txt;
    return e;
  }

  function citeLink(n) {
    const c = cites.get(n);
    if (!c) return el("span", "cite bad", `[#${n}]`);
    const a = el("a", "cite", `[#${n}]`);
    a.href = `/view/chunk/${c.chunk_id}`;
    a.title = c.display || "";
    a.dataset.n = String(n);
    return a;
  }

  function renderAnswer() {
    answer.replaceChildren();
    let pos = 0;
    for (const m of text.matchAll(CITE)) {
      answer.append(document.createTextNode(text.slice(pos, m.index)));
      answer.append(citeLink(parseInt(m[1], 10)));
      pos = m.index + m[0].length;
    }
    answer.append(document.createTextNode(text.slice(pos)));
  }

  function openSource(href, title) {
    pane.hidden = false;
    frame.src = href + (href.includes("?") ? "&" : "?") + "embed=1";
    document.getElementById("viewer-title").textContent = title || href;
    document.getElementById("viewer-open").href = href;
    if (window.matchMedia("(max-width: 900px)").matches) {
      // stacked under the answer on a phone: bring the source into view once it loaded
      frame.addEventListener("load", () => pane.scrollIntoView({ block: "start" }), { once: true });
    }
  }

  document.addEventListener("click", (ev) => {
    const a = ev.target.closest("a.cite, a.srclink");
    if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    openSource(a.getAttribute("href"), a.title || a.textContent);
  });
  document.getElementById("viewer-close").addEventListener("click", () => {
    pane.hidden = true;
    frame.src = "about:blank";
  });

  function addVerdict(v) {
    verdicts.hidden = false;
    const li = el("li", v.verdict);
    li.append(el("span", "v", v.verdict === "supported" ? "✓" : "✗"));
    li.append(document.createTextNode((v.claim || v.text).trim() + " "));
    // a quote is copied from its passage: "supported" would be true by construction
    const tag = v.quoted && v.verdict === "supported"
      ? `quoted from [#${v.evidence ? v.evidence.n : v.citations[0]}]`
      : v.verdict + (v.score !== null && v.score !== undefined ? ` (${v.score.toFixed(2)})` : "");
    li.append(el("span", "tag", tag));
    if (v.evidence && v.evidence.quote) {
      // an unsupported sentence's closest passage sentence is not evidence: say so
      const closest = v.verdict === "supported" ? "" : "closest: ";
      li.append(el("span", "ev", `${closest}“${v.evidence.quote}” — ${v.evidence.locator.display}`));
    }
    if (v.contradiction) {
      // the verifier's polarity rule, in the words kb.rag.claim_polarity wrote
      li.append(el("span", "ev", "it " + v.contradiction.line));
    }
    if (v.verdict !== "supported" && v.suggested) {
      li.append(el("span", "ev", `[#${v.suggested.n}] supports it (${v.suggested.score.toFixed(2)})`));
    }
    verdicts.querySelector("ol").append(li);
  }

  function showRetrieved(list) {
    // the passages [#1]..[#k] the answer will cite, while the model decides; finish()
    // replaces them with the cited sources and their quotes
    const ol = sources.querySelector("ol");
    ol.replaceChildren();
    for (const s of list) {
      cites.set(s.n, { chunk_id: s.chunk_id, display: s.locator.display });
      const li = el("li");
      li.value = s.n;
      const a = el("a", "srclink", s.locator.display || s.path);
      a.href = `/view/chunk/${s.chunk_id}`;
      li.append(a);
      ol.append(li);
    }
    sources.querySelector("h2").textContent = "Retrieved";
    sources.hidden = !list.length;
  }

  function finish(rec) {
    for (const c of rec.contexts || []) {
      if (!cites.has(c.n)) cites.set(c.n, { chunk_id: c.chunk_id, display: c.locator.display });
    }
    text = rec.text || text;
    renderAnswer();
    // the reason is rendered once, in Python (kb.rag.reasons.outcome), for the CLI,
    // this page and MCP alike
    const o = rec.outcome || {};
    let msg = o.line || "";
    const cls = o.kind === "grounded" ? "good"
      : ["ungrounded", "unsupported", "not_responsive", "error"].includes(o.kind) ? "bad" : "warn";
    if (o.kind === "no_hits" && rec.nearest) msg += " Closest: " + rec.nearest.locator.display + ".";
    label.hidden = false;
    label.className = "label " + cls;
    label.textContent = msg;
    const ol = sources.querySelector("ol");
    ol.replaceChildren();
    sources.querySelector("h2").textContent = "Sources";
    const evidence = new Map();
    // a sentence's evidence before a quoted heading's (a journal entry's date)
    const better = (e, f) => (!e.heading && f.heading) || (!!e.heading === !!f.heading && e.score > f.score);
    for (const v of rec.sentences || []) {
      // only a supported sentence's evidence is shown under its source (AnswerRecord.evidence_by_n)
      if (v.verdict !== "supported" || !v.evidence) continue;
      if (!evidence.has(v.evidence.n) || better(v.evidence, evidence.get(v.evidence.n))) {
        evidence.set(v.evidence.n, v.evidence);
      }
    }
    for (const c of rec.citations || []) {
      const li = el("li");
      li.value = c.n;
      const a = el("a", "srclink", c.locator.display || c.path);
      a.href = `/view/chunk/${c.chunk_id}`;
      li.append(a);
      const ev = evidence.get(c.n);
      if (ev) li.append(el("span", "quote", `“${ev.quote}”` + (ev.columns ? ` (columns: ${ev.columns.join(" | ")})` : "")));
      else if ((rec.sentences || []).length) {
        li.append(el("span", "quote none", "no sentence of this passage supports the answer"));
      }
      ol.append(li);
    }
    sources.hidden = !(rec.citations || []).length;
    const t = rec.timings || {};
    const parts = [];
    if (t.first_token_s != null) parts.push(`first token ${(t.first_token_s * 1000).toFixed(0)} ms`);
    if (t.total_s != null) parts.push(`total ${(t.total_s).toFixed(2)} s`);
    status.textContent = parts.join(" · ");
    answer.hidden = !text;
  }

  function ask(question) {
    if (es) es.close();
    text = ""; cites = new Map(); verdictOf = new Map();
    answer.replaceChildren(); answer.hidden = true;
    label.hidden = true; verdicts.hidden = true; sources.hidden = true;
    verdicts.querySelector("ol").replaceChildren();
    status.textContent = "Searching and writing…";
    btn.disabled = true;
    const params = new URLSearchParams(new FormData(form));
    for (const [k, v] of Array.from(params.entries())) if (!v) params.delete(k);
    history.replaceState(null, "", "/?" + params.toString());
    es = new EventSource("/api/ask?" + params.toString());
    es.addEventListener("sources", (e) => {
      const d = JSON.parse(e.data);
      showRetrieved(d.sources || []);
      status.textContent = `Answering from ${(d.sources || []).length} passages…`;
    });
    es.addEventListener("token", (e) => {
      const d = JSON.parse(e.data);
      text += d.text;
      answer.hidden = false;
      status.textContent = "Writing…";
      renderAnswer();
    });
    es.addEventListener("citation", (e) => {
      const d = JSON.parse(e.data);
      if (d.valid) cites.set(d.n, { chunk_id: d.chunk_id, display: d.locator.display });
      renderAnswer();
    });
    es.addEventListener("verdict", (e) => addVerdict(JSON.parse(e.data)));
    es.addEventListener("done", (e) => {
      es.close();
      btn.disabled = false;
      finish(JSON.parse(e.data).answer);
    });
    es.addEventListener("error", (e) => {
      let msg = "The connection to kb serve was lost.";
      if (e.data) { try { msg = JSON.parse(e.data).error; } catch (x) { /* keep */ } }
      es.close();
      btn.disabled = false;
      if (!label.hidden) return;
      status.textContent = msg;
    });
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (q.value.trim()) ask(q.value.trim());
  });
  if (q.value.trim()) ask(q.value.trim());
})();
