"use strict";
// The review page. Every string from the results (answers, messages, test names, ids) reaches the DOM as a text
// node, never as markup. Answers are drawn one at a time from the embedded data.
(function () {
  const data = JSON.parse(document.getElementById("kite-data").textContent);
  const answers = data.answers;
  const byLine = new Map(answers.map((answer) => [answer.line, answer]));
  const PAGE = 300;
  const flipped = new Map();
  let visible = answers;
  let shown = PAGE;
  let selected = null;

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "text") node.textContent = value;
      else if (name === "style") Object.assign(node.style, value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  }

  const percent = (value) => (value === null || value === undefined ? "-" : (100 * value).toFixed(1) + "%");
  const signed = (value) => (value === null ? "-" : (value > 0 ? "+" : "") + (100 * value).toFixed(1) + " pp");
  const clamp = (value) => Math.max(0, Math.min(1, value));
  const label = (answer) => answer.label;

  function rateBar(rate) {
    const bar = el("span", { class: "bar", title: rate.rate === null ? "no answers" : percent(rate.rate) + " [" + percent(rate.low) + ", " + percent(rate.high) + "]" });
    if (rate.rate !== null) {
      bar.append(el("span", { class: "fill", style: { width: 100 * clamp(rate.rate) + "%" } }));
      bar.append(el("span", { class: "whisker", style: { left: 100 * clamp(rate.low) + "%", width: 100 * (clamp(rate.high) - clamp(rate.low)) + "%" } }));
    }
    return bar;
  }

  function changeBar(row) {
    const bar = el("span", { class: "bar change", title: signed(row.change) + " [" + signed(row.low) + ", " + signed(row.high) + "]" }, el("span", { class: "zero" }));
    if (row.change !== null) {
      const at = (value) => 50 + 50 * Math.max(-1, Math.min(1, value)) + "%";
      bar.append(el("span", { class: "whisker", style: { left: at(row.low), width: 50 * (row.high - row.low) + "%" } }));
      bar.append(el("span", { class: "dot", style: { left: at(row.change) } }));
    }
    return bar;
  }

  function table(id, headings, rows) {
    return el("table", { id }, el("thead", {}, el("tr", {}, ...headings.map((heading) => el("th", { text: heading })))),
      el("tbody", {}, ...rows.map((cells) => el("tr", {}, ...cells.map((cell) =>
        cell instanceof Node ? el("td", {}, cell) : el("td", { class: typeof cell === "number" ? "number" : null, text: String(cell) }))))));
  }

  function renderSummary() {
    const summary = data.summary;
    document.getElementById("title").textContent = "kite report: " + data.name;
    document.title = "kite report: " + data.name;
    document.getElementById("subtitle").textContent = summary.answers + " answers, " + summary.graded + " graded, " +
      summary.ungradable.count + " could not be graded · kite " + data.version;
    const section = document.getElementById("summary");
    section.append(el("h2", { text: "Summary" }));
    section.append(el("h3", { text: "Rates (95% Wilson interval)" }));
    section.append(table("rates", ["rate", "value", "interval", "", "count"], Object.entries(summary.rates).map(([name, rate]) =>
      [name, percent(rate.rate), "[" + percent(rate.low) + ", " + percent(rate.high) + "]", rateBar(rate), rate.count + " / " + rate.of])));
    section.append(el("h3", { text: "Rules (pass rate where the rule applies)" }));
    section.append(table("rules", ["rule", "pass", "fail", "n/a", "pass rate", ""], Object.entries(summary.rules).map(([rule, rate]) =>
      [rule, rate.count, rate.failed, rate.not_applicable, percent(rate.rate), rateBar(rate)])));
    if (summary.pass_at_k) {
      section.append(el("h3", { text: "pass@k" }));
      const ks = Object.keys(summary.pass_at_k);
      section.append(table("pass-at-k", ["k", ...ks], [["pass@k", ...ks.map((k) => percent(summary.pass_at_k[k]))]]));
    }
    if (data.tasks.length) {
      section.append(el("h3", { text: "Tasks" }));
      section.append(table("tasks", ["task", "answers", "compiles", "passes", "pass rate", ""], data.tasks.map((row) =>
        [row.task, row.answers, row.compiles.count, row.passes.count, percent(row.passes.rate), rateBar(row.passes)])));
    }
    if (summary.augmented) {
      const caught = summary.augmented;
      section.append(el("h3", { text: "Augmented tests: answers that pass the original hidden tests but fail the augmented ones" }));
      section.append(table("augmented", ["task", "answers", "pass the original tests", "fail the augmented ones"],
        [...Object.entries(caught.tasks), ["all tasks", caught]].map(([task, c]) => [task, c.answers, c.passed_original, c.fail_augmented])));
    }
    if (summary.mean_score !== null) section.append(el("p", { text: "mean score: " + summary.mean_score.toFixed(2) + " / 10" }));
    if (summary.ungradable.count) {
      section.append(el("h3", { text: "Could not be graded" }));
      section.append(el("ul", {}, ...summary.ungradable.answers.map((u) =>
        el("li", {}, el("a", { href: "#answer-" + u.line, text: "line " + u.line }), " " + u.kind + ": " + u.message))));
    }
  }

  function renderComparison() {
    if (!data.baseline) return;
    const baseline = data.baseline;
    const section = document.getElementById("comparison");
    section.hidden = false;
    section.append(el("h2", { text: "Compared with " + baseline.name }));
    section.append(table("changes", ["rate", "before", "now", "change", "95% interval", ""], baseline.changes.map((row) =>
      [row.name, percent(row.old.rate), percent(row.new.rate), el("span", { class: row.low > 0 ? "up" : row.high < 0 ? "down" : null, text: signed(row.change) }),
        "[" + signed(row.low) + ", " + signed(row.high) + "]", changeBar(row)])));
    const flips = baseline.flips;
    section.append(el("p", { class: "hint", text: flips.matched + " answers matched by " + flips.matched_by }));
    for (const [key, heading] of [["to_pass", "Now passes"], ["to_fail", "Now fails"]]) {
      for (const flip of flips[key]) flipped.set(flip.line, key);
      section.append(el("h3", { id: "flips-" + key, text: heading + " (" + flips[key].length + ")" }));
      section.append(el("ul", { class: "flips" }, ...flips[key].map((flip) => {
        const answer = byLine.get(flip.line);
        return el("li", {}, el("a", { href: "#answer-" + flip.line, text: answer ? label(answer) : "line " + flip.line }),
          flip.old_line !== flip.line ? " (line " + flip.old_line + " before)" : "");
      })));
    }
    document.getElementById("filter-flip-label").hidden = false;
  }

  // ---- filters

  function fillSelect(id, values) {
    const select = document.getElementById(id);
    for (const value of values) select.append(el("option", { value, text: value }));
  }

  const lowered = new Map();
  function haystack(answer) {
    if (!lowered.has(answer.line)) lowered.set(answer.line, [answer.text || "", String(answer.id ?? ""), String(answer.task ?? "")].join("\n").toLowerCase());
    return lowered.get(answer.line);
  }

  const value = (id) => document.getElementById(id).value;
  const checked = (id) => document.getElementById(id).checked;

  function matches(answer) {
    if (checked("filter-failed") && answer.passed) return false;
    if (checked("filter-leaked") && !answer.leaked) return false;
    if (checked("filter-false-claims") && !(answer.claims || []).some((claim) => claim.false)) return false;
    if (checked("filter-slop") && !(answer.slop || []).length) return false;
    if (value("filter-task") && String(answer.task) !== value("filter-task")) return false;
    if (value("filter-rule") && !(answer.failed_rules || []).includes(value("filter-rule"))) return false;
    if (value("filter-layer") && !(answer.failed_layers || []).includes(value("filter-layer"))) return false;
    if (value("filter-flip") && flipped.get(answer.line) !== value("filter-flip")) return false;
    const search = value("search").trim().toLowerCase();
    return !search || haystack(answer).includes(search);
  }

  function applyFilters() {
    visible = answers.filter(matches);
    shown = PAGE;
    const count = document.getElementById("count");
    count.textContent = visible.length + " of " + answers.length + " answers";
    count.dataset.visible = String(visible.length);
    renderList();
  }

  function renderList() {
    const list = document.getElementById("answer-list");
    list.replaceChildren(...visible.slice(0, shown).map((answer) =>
      el("li", {}, el("a", { href: "#answer-" + answer.line, "data-line": answer.line, text: label(answer),
        class: (answer.passed ? "passed" : "failed") + (selected && selected.line === answer.line ? " selected" : "") }))));
    document.getElementById("more").hidden = visible.length <= shown;
  }

  // ---- one answer

  function pieces(text, from, to, layers) {
    // Cut [from, to) at every edge of every interval; each piece knows the intervals covering it. A sweep, so a
    // hostile answer's thousands of tokens or marks on one line cost n log n, not n squared.
    const items = [];
    for (const layer of layers) for (const item of layer) if (item.end > item.start && item.end > from && item.start < to) items.push(item);
    const cuts = new Set([from, to]);
    for (const item of items) { if (item.start > from) cuts.add(item.start); if (item.end < to) cuts.add(item.end); }
    const points = [...cuts].sort((a, b) => a - b);
    items.sort((a, b) => a.start - b.start);
    const active = new Set();
    const result = [];
    let next = 0;
    for (let i = 0; i + 1 < points.length; i++) {
      const start = points[i], end = points[i + 1];
      for (const item of active) if (item.end <= start) active.delete(item);
      for (; next < items.length && items[next].start <= start; next++) if (items[next].end > start) active.add(items[next]);
      result.push({ start, end, text: text.slice(start, end), covering: [...active] });
    }
    return result;
  }

  function prose(text, from, to, marks) {
    const container = el("span");
    for (const piece of pieces(text, from, to, [marks])) {
      if (!piece.covering.length) { container.append(piece.text); continue; }
      container.append(el("mark", { class: [...new Set(piece.covering.map((mark) => mark.classes))].join(" "),
        "data-marks": piece.covering.map((mark) => mark.key).join(" "), title: piece.covering.map((mark) => mark.why).join("\n"), text: piece.text }));
    }
    return container;
  }

  function codeBlock(answer, block, index) {
    const text = answer.text;
    const container = el("div", { class: "code", "data-block": index });
    container.append(el("div", { class: "language", text: (block.language || "untagged") + (block.kite ? " · Kite" + (block.read_as ? ", read as " + block.read_as : "") : " · not graded as Kite") }));
    const tokens = [];
    let at = block.start;
    const flat = block.tokens || [];  // [class index, length, class index, length, ...]
    for (let i = 0; i + 1 < flat.length; i += 2) { tokens.push({ start: at, end: at + flat[i + 1], cls: data.token_classes[flat[i]] }); at += flat[i + 1]; }
    const located = answer.diagnostics.filter((d) => d.block === index);
    let firstToken = 0;
    let lineStart = block.start;
    let number = 0;
    while (lineStart <= block.end) {
      number++;
      let lineEnd = text.indexOf("\n", lineStart);
      if (lineEnd < 0 || lineEnd > block.end) lineEnd = block.end;
      const shownEnd = text[lineEnd - 1] === "\r" && lineEnd > lineStart ? lineEnd - 1 : lineEnd;
      const here = located.filter((d) => d.code_line >= lineStart && d.code_line <= lineEnd);
      const ranges = here.filter((d) => d.at).map((d) => ({ start: d.at[0], end: d.at[1], d }));
      const line = el("div", { class: "code-line", "data-line": number }, el("span", { class: "number", text: String(number) }));
      while (firstToken < tokens.length && tokens[firstToken].end <= lineStart) firstToken++;
      let lastToken = firstToken;
      while (lastToken < tokens.length && tokens[lastToken].start < shownEnd) lastToken++;
      for (const piece of pieces(text, lineStart, shownEnd, [tokens.slice(firstToken, lastToken), ranges])) {
        const token = piece.covering.find((item) => item.cls !== undefined);
        const range = piece.covering.find((item) => item.d);
        line.append(el("span", { class: [token ? token.cls : null, range ? "diag-range " + range.d.severity : null].filter(Boolean).join(" ") || null, text: piece.text }));
      }
      for (const point of ranges.filter((range) => range.start === range.end)) {
        line.append(el("span", { class: "diag-point", title: point.d.id }));
      }
      container.append(line);
      for (const d of here) {
        if (d.at) {
          const lead = text.slice(lineStart, d.at[0]).replace(/[^\t]/g, " ");
          const width = Math.min(d.at[1], shownEnd) - d.at[0];  // a range over several lines: its first line here
          container.append(el("div", { class: "caret " + d.severity, "data-diagnostic": d.id }, el("span", { class: "number" }), lead + "^".repeat(Math.max(1, width))));
        }
        container.append(el("div", { class: "diag-message " + d.severity, "data-diagnostic": d.id, "data-under-line": number },
          el("span", { class: "number" }), d.severity + " " + d.id + " (" + d.layer + "): " + d.message));
      }
      if (lineEnd >= block.end) break;
      lineStart = lineEnd + 1;
    }
    return container;
  }

  function marksOf(answer) {
    const claims = (answer.claims || []).map((claim, i) => ({ start: claim.start, end: claim.end, key: "claim-" + i,
      classes: claim.false ? "claim false" : "claim", why: (claim.false ? "false claim (" : "claim (") + claim.kind + ")" + (claim.reason ? ": " + claim.reason : "") }));
    const slop = (answer.slop || []).map((hit, i) => ({ start: hit.start, end: hit.end, key: "slop-" + i, classes: "slop", why: "slop: " + hit.category }));
    return claims.concat(slop);
  }

  function badges(answer) {
    const badge = (text, kind) => el("span", { class: kind, text });
    const list = [badge(answer.passed ? "passes" : "fails", answer.passed ? "good" : "bad")];
    if (answer.graded) {
      if (answer.format !== "kite") list.push(badge("format " + answer.format));
      if (answer.compiles !== undefined && answer.compiles !== null) list.push(badge(answer.compiles ? "compiles" : "does not compile", answer.compiles ? "good" : "bad"));
      if (answer.leaked) list.push(badge("leaked C#", "bad"));
      const falseClaims = (answer.claims || []).filter((claim) => claim.false).length;
      if (falseClaims) list.push(badge(falseClaims + " false claim" + (falseClaims > 1 ? "s" : ""), "bad"));
      if ((answer.slop || []).length) list.push(badge(answer.slop.length + " slop", "bad"));
      for (const rule of answer.failed_rules || []) list.push(badge(rule + " failed", "bad"));
    }
    if (flipped.has(answer.line)) list.push(badge(flipped.get(answer.line) === "to_pass" ? "now passes" : "now fails", flipped.get(answer.line) === "to_pass" ? "good" : "bad"));
    return el("div", { class: "badges" }, ...list);
  }

  function testTable(title, tests) {
    if (!tests || !tests.length) return null;
    return el("div", {}, el("h3", { text: title }), table(null, ["test", "status", "message"], tests.map((test) =>
      [test.name, el("span", { class: "status-" + test.status, text: test.status }), el("span", { class: "message", text: test.message || "" })])));
  }

  function renderAnswer(answer) {
    selected = answer;
    const article = document.getElementById("answer");
    const parts = [el("h2", {}, el("a", { href: "#answer-" + answer.line, class: "permalink", text: label(answer) }),
      answer.task !== null && answer.task !== undefined ? " · task " + String(answer.task) : ""), badges(answer)];
    if (answer.problem) parts.push(el("p", { class: "problem", text: "could not be graded: " + answer.problem.kind + ": " + answer.problem.message }));
    for (const reason of answer.reasons || []) parts.push(el("p", { class: "reason", text: reason }));
    if (answer.text === null || answer.text === undefined) {
      parts.push(el("p", { class: "hint", text: data.has_texts ? "no answer text in the run for this line" : "answer texts not included: give kite report --run RUN --field PATH" }));
      marksOf(answer).forEach((mark, i) => parts.push(el("p", {}, el("mark", { class: mark.classes, "data-marks": mark.key, title: mark.why,
        text: i < (answer.claims || []).length ? answer.claims[i].sentence : answer.slop[i - answer.claims.length].phrase }), " " + mark.why)));
    } else {
      const body = el("div", { class: "prose" });
      const marks = marksOf(answer);
      let at = 0;
      (answer.blocks || []).forEach((block, index) => {
        body.append(prose(answer.text, at, block.start, marks));
        body.append(codeBlock(answer, block, index));
        at = block.end;
      });
      body.append(prose(answer.text, at, answer.text.length, marks));
      parts.push(body);
    }
    const elsewhere = (answer.diagnostics || []).filter((d) => d.block === undefined);
    if (elsewhere.length) {
      parts.push(el("h3", { text: "Other diagnostics" }));
      parts.push(el("ul", { class: "other-diagnostics" }, ...elsewhere.map((d) =>
        el("li", { class: "diag-message " + d.severity, "data-diagnostic": d.id, text: String(d.file) + ":" + d.line + ": " + d.severity + " " + d.id + ": " + d.message }))));
    }
    parts.push(testTable("Hidden tests", answer.tests));
    parts.push(testTable("The answer's own tests (reported apart)", answer.own_tests));
    article.replaceChildren(...parts.filter(Boolean));
    article.dataset.line = String(answer.line);
    for (const link of document.querySelectorAll("#answer-list a.selected")) link.classList.remove("selected");
    const link = document.querySelector('#answer-list a[data-line="' + answer.line + '"]');
    if (link) link.classList.add("selected");
  }

  function openFromHash() {
    const match = /^#answer-(\d+)$/.exec(location.hash);
    const answer = match && byLine.get(Number(match[1]));
    if (!answer) return;
    const index = visible.indexOf(answer);
    if (index >= shown) { shown = index + 1; renderList(); }
    renderAnswer(answer);
    const link = document.querySelector('#answer-list a[data-line="' + answer.line + '"]');
    if (link) link.scrollIntoView({ block: "nearest" });
  }

  function step(direction) {
    if (!visible.length) return;
    const index = selected ? visible.indexOf(selected) : -1;
    const next = index < 0 ? (direction > 0 ? 0 : visible.length - 1) : Math.max(0, Math.min(visible.length - 1, index + direction));
    // Shown now, not on hashchange (which comes later): a second key pressed before it would step from the old answer.
    history.pushState(null, "", "#answer-" + visible[next].line);
    openFromHash();
  }

  renderSummary();
  renderComparison();
  fillSelect("filter-task", [...new Set(answers.map((a) => a.task).filter((task) => task !== null && task !== undefined).map(String))].sort());
  fillSelect("filter-rule", Object.keys(data.summary.rules));
  fillSelect("filter-layer", ["kite", "compiler", "analyzers", "tests"]);
  for (const control of document.querySelectorAll("#filters input, #filters select")) control.addEventListener("input", applyFilters);
  document.getElementById("more").addEventListener("click", () => { shown += PAGE; renderList(); });
  window.addEventListener("hashchange", openFromHash);
  document.addEventListener("keydown", (event) => {
    // Typing in the search box or choosing in a list is not navigation; a ticked checkbox keeps j/k working.
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.matches("input:not([type=checkbox]), select, textarea")) return;
    if (event.key === "j") step(1);
    else if (event.key === "k") step(-1);
  });
  applyFilters();
  openFromHash();
  document.body.dataset.ready = "true";
})();
