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

  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attributes, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    for (const child of children) node.append(child);
    return node;
  }

  // A rate drawn as inline SVG: the bar is the rate, the whisker its 95% interval.
  function rateBar(rate, width) {
    const w = width || 220, h = 14;
    const plot = svg("svg", { class: "bar", width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img" },
      svg("title", {}, rate.rate === null ? "no answers" : percent(rate.rate) + " [" + percent(rate.low) + ", " + percent(rate.high) + "]"),
      svg("rect", { x: 0, y: 0, width: w, height: h, rx: 2, class: "track" }));
    if (rate.rate !== null) {
      plot.append(svg("rect", { x: 0, y: 3, width: w * clamp(rate.rate), height: h - 6, class: "fill" }));
      const low = w * clamp(rate.low), high = w * clamp(rate.high);
      plot.append(svg("path", { d: "M" + low + " 2V12M" + low + " 7H" + high + "M" + high + " 2V12", class: "whisker" }));
    }
    return plot;
  }

  function changeBar(row) {
    const w = 220, h = 14, at = (value) => w / 2 + (w / 2) * Math.max(-1, Math.min(1, value));
    const plot = svg("svg", { class: "bar change", width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img" },
      svg("title", {}, signed(row.change) + " [" + signed(row.low) + ", " + signed(row.high) + "]"),
      svg("rect", { x: 0, y: 0, width: w, height: h, rx: 2, class: "track" }), svg("path", { d: "M" + w / 2 + " 0V14", class: "zero" }));
    if (row.change !== null) {
      plot.append(svg("path", { d: "M" + at(row.low) + " 2V12M" + at(row.low) + " 7H" + at(row.high) + "M" + at(row.high) + " 2V12", class: "whisker" }));
      plot.append(svg("circle", { cx: at(row.change), cy: 7, r: 4, class: "dot" }));
    }
    return plot;
  }

  const interval = (rate) => "[" + percent(rate.low) + ", " + percent(rate.high) + "]";
  const of = (text) => el("p", { class: "denominator hint", text: "of " + text });

  function table(id, headings, rows) {
    return el("table", { id }, el("thead", {}, el("tr", {}, ...headings.map((heading) => el("th", { text: heading })))),
      el("tbody", {}, ...rows.map((cells) => el("tr", {}, ...cells.map((cell) =>
        cell instanceof Node ? el("td", {}, cell) : el("td", { class: typeof cell === "number" ? "number" : null, text: String(cell) }))))));
  }

  function renderHeadline(section, summary) {
    const rates = summary.rates;
    const headline = rates.passes ? ["passes the hidden tests", rates.passes] : ["compiles (no hidden tests ran)", rates.compiles];
    const box = el("div", { id: "headline" },
      el("div", { class: "big" }, el("span", { id: "headline-rate", text: percent(headline[1].rate) }),
        el("span", { class: "what", text: " " + headline[0] })),
      el("div", { class: "hint", id: "headline-interval", text: "95% interval " + interval(headline[1]) + " · " + headline[1].count + " / " + headline[1].of }),
      rateBar(headline[1], 360), of(data.denominators.achieved));
    const side = el("div", { id: "honesty" });
    for (const [key, name, why] of [["leaked", "C# leaked (KT004)", "the most important rule for the experiment: is it writing Kite or C#"],
      ["false_claims", "false claims", "answers with at least one claim about its code that the layers contradict"]]) {
      const rate = rates[key];
      side.append(el("div", { class: "side-rate", id: "rate-" + key }, el("span", { class: "value", text: percent(rate.rate) }),
        el("span", { text: " " + name }), el("div", { class: "hint", text: interval(rate) + " · " + rate.count + " / " + rate.of + " · " + why }), rateBar(rate)));
    }
    side.append(of(data.denominators.found));
    section.append(el("div", { class: "headline-row" }, box, side));
    const steps = data.funnel;
    if (!steps.length) return;
    section.append(el("h3", { text: "The four layers: has code → compiles → clean → passes" }));
    const w = 640, rowH = 30;
    const plot = svg("svg", { id: "funnel-plot", width: w + 300, height: steps.length * rowH, role: "img" });
    steps.forEach((step, i) => {
      const width = w * clamp(step.rate.rate || 0), x = (w - width) / 2;
      plot.append(svg("rect", { x, y: i * rowH + 3, width, height: rowH - 8, class: "funnel-step" }, svg("title", {}, step.label + ": " + percent(step.rate.rate))));
      plot.append(svg("text", { x: w + 10, y: i * rowH + rowH / 2 + 4 }, step.label + " " + percent(step.rate.rate) + " (" + step.rate.count + ")"));
    });
    section.append(plot);
    section.append(table("funnel", ["step", "reached", "interval", "lost at this step", "loss interval", ""], steps.map((step) =>
      [step.label, percent(step.rate.rate) + " (" + step.rate.count + " / " + step.rate.of + ")", interval(step.rate),
        percent(step.lost.rate) + " (" + step.lost.count + " / " + step.lost.of + ")", interval(step.lost), rateBar(step.lost, 160)])));
    section.append(el("p", { class: "hint", text: "Each step counts the answers that reached it and every step before it; its loss is over the answers of the step before. " +
      "Reached: of " + data.denominators.achieved + "." }));
  }

  function renderRules(section, summary) {
    section.append(el("h3", { text: "Rules, most failed first (pass rate where the rule applies)" }));
    section.append(of(data.denominators.rules));
    const entries = Object.entries(summary.rules);
    const applied = entries.filter(([, rate]) => rate.of > 0).sort((a, b) => b[1].failed - a[1].failed || (a[1].rate - b[1].rate) || (a[0] < b[0] ? -1 : 1));
    const never = entries.filter(([, rate]) => rate.of === 0);
    const docLink = (rule) => el("a", { href: "#rule-doc-" + rule, text: rule });
    section.append(table("rules", ["rule", "what it flags", "fail", "pass", "n/a", "pass rate", "interval", ""], applied.map(([rule, rate]) =>
      [docLink(rule), (data.rule_docs[rule] || {}).summary || "", rate.failed, rate.count, rate.not_applicable, percent(rate.rate), interval(rate), rateBar(rate, 160)])));
    if (never.length) {
      section.append(el("details", { id: "rules-never-applied" }, el("summary", { text: never.length + " rules never applied: " + never.map(([rule]) => rule).join(", ") }),
        table("rules-never", ["rule", "what it flags", "n/a"], never.map(([rule, rate]) => [docLink(rule), (data.rule_docs[rule] || {}).summary || "", rate.not_applicable]))));
    }
    const docs = el("details", { id: "rule-docs" }, el("summary", { text: "What each rule means (as docs/rules.md)" }));
    for (const [rule, doc] of Object.entries(data.rule_docs)) {
      docs.append(el("div", { class: "rule-doc", id: "rule-doc-" + rule }, el("h4", { text: rule + ": " + doc.summary }), el("p", { text: doc.rationale }),
        el("pre", { class: "message", text: "e.g.   " + doc.example + "\ninstead " + doc.fix })));
    }
    section.append(docs);
  }

  function renderSummary() {
    const summary = data.summary;
    document.getElementById("title").textContent = "kite report: " + data.name;
    document.title = "kite report: " + data.name;
    document.getElementById("subtitle").textContent = summary.answers + " answers, " + summary.graded + " graded, " +
      summary.ungradable.count + " could not be graded · kite " + data.version;
    const section = document.getElementById("summary");
    section.append(el("h2", { text: "Summary" }));
    renderHeadline(section, summary);
    section.append(el("h3", { text: "Rates (95% Wilson interval)" }));
    const groups = [["achieved", ["has_code", "compiles", "clean", "passes"]], ["found", ["leaked", "false_claims", "slop"]]];
    const rows = [];
    for (const [group, names] of groups) for (const name of names) if (summary.rates[name]) rows.push([name, summary.rates[name], group]);
    section.append(table("rates", ["rate", "value", "interval", "", "count", "of"], rows.map(([name, rate, group]) =>
      [name, percent(rate.rate), interval(rate), rateBar(rate), rate.count + " / " + rate.of, group === "achieved" ? "Kite answers and ungraded lines" : "graded Kite answers"])));
    section.append(of(data.denominators.achieved + " (has_code, compiles, clean, passes); " + data.denominators.found + " (leaked, false_claims, slop)"));
    renderRules(section, summary);
    if (summary.formats) {
      section.append(el("h3", { text: "Other formats (valid rate)" }));
      section.append(of(data.denominators.formats));
      section.append(table("formats", ["format", "valid", "interval", "", "count"], Object.entries(summary.formats).map(([fmt, rate]) =>
        [fmt, percent(rate.rate), interval(rate), rateBar(rate), rate.count + " / " + rate.of])));
    }
    if (summary.pass_at_k) {
      section.append(el("h3", { text: "pass@k" }));
      section.append(of(data.denominators.pass_at_k));
      const ks = Object.keys(summary.pass_at_k);
      section.append(table("pass-at-k", ["k", ...ks], [["pass@k", ...ks.map((k) => percent(summary.pass_at_k[k]))]]));
    }
    if (data.tasks.length) {
      section.append(el("h3", { text: "Tasks" }));
      section.append(of(data.denominators.tasks));
      section.append(table("tasks", ["task", "answers", "compiles", "passes", "pass rate", "interval", ""], data.tasks.map((row) =>
        [row.task, row.answers, row.compiles.count, row.passes.count, percent(row.passes.rate), interval(row.passes), rateBar(row.passes)])));
    }
    if (summary.augmented) {
      const caught = summary.augmented;
      section.append(el("h3", { text: "Augmented tests: answers that pass the original hidden tests but fail the augmented ones" }));
      section.append(table("augmented", ["task", "answers", "pass the original tests", "fail the augmented ones"],
        [...Object.entries(caught.tasks), ["all tasks", caught]].map(([task, c]) => [task, c.answers, c.passed_original, c.fail_augmented])));
    }
    if (summary.mean_score !== null) section.append(el("p", { id: "mean-score", text: "mean score: " + summary.mean_score.toFixed(2) + " / 10, over " + data.denominators.mean_score }));
    if (summary.ungradable.count) {
      section.append(el("h3", { text: "Could not be graded" }));
      section.append(el("ul", {}, ...summary.ungradable.answers.map((u) =>
        el("li", {}, el("a", { href: "#answer-" + u.line, text: "line " + u.line }), " " + u.kind + ": " + u.message))));
    }
  }

  function renderComparison() {
    const comparisons = data.comparisons || [];
    if (!comparisons.length) return;
    const section = document.getElementById("comparison");
    section.hidden = false;
    const withInterval = (rate) => percent(rate.rate) + " " + interval(rate);
    comparisons.forEach((other, index) => {
      const suffix = index === 0 ? "" : "-" + index;  // the first other run keeps the plain ids (the --baseline case)
      section.append(el("h2", { text: "Compared with " + other.name + " (" + other.answers + " answers): " + data.name + " minus " + other.name }));
      section.append(table("changes" + suffix, ["rate", other.name, data.name, "change", "95% interval", ""], other.changes.map((row) =>
        [row.name, withInterval(row.old), withInterval(row.new), el("span", { class: row.low > 0 ? "up" : row.high < 0 ? "down" : null, text: signed(row.change) }),
          "[" + signed(row.low) + ", " + signed(row.high) + "]", changeBar(row)])));
      if (other.tasks.length) {
        section.append(el("h3", { text: "Pass rate per task" }));
        section.append(of(data.denominators.tasks));
        section.append(table("task-changes" + suffix, ["task", other.name, data.name, "change", "95% interval", ""], other.tasks.map((row) =>
          [row.task, withInterval(row.old), withInterval(row.new), el("span", { class: row.low > 0 ? "up" : row.high < 0 ? "down" : null, text: signed(row.change) }),
            "[" + signed(row.low) + ", " + signed(row.high) + "]", changeBar(row)])));
      }
      const flips = other.flips;
      section.append(el("p", { class: "hint", text: flips.matched + " answers matched by " + flips.matched_by }));
      for (const [key, heading] of [["to_pass", "Now passes"], ["to_fail", "Now fails"]]) {
        if (index === 0) for (const flip of flips[key]) flipped.set(flip.line, key);
        section.append(el("h3", { id: "flips-" + key + suffix, text: heading + " (" + flips[key].length + ")" }));
        section.append(el("ul", { class: "flips" }, ...flips[key].map((flip) => {
          const answer = byLine.get(flip.line);
          return el("li", {}, el("a", { href: "#answer-" + flip.line, text: answer ? label(answer) : "line " + flip.line }),
            flip.old_line !== flip.line ? " (line " + flip.old_line + " in " + other.name + ")" : "");
        })));
      }
    });
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
    sortVisible();
    shown = PAGE;
    const count = document.getElementById("count");
    count.textContent = visible.length + " of " + answers.length + " answers";
    count.dataset.visible = String(visible.length);
    renderList();
  }

  // The answers table: one row per matching answer, sortable by any column (click its heading again to reverse).
  const COLUMNS = [
    ["answer", (a) => a.line, (a) => el("a", { href: "#answer-" + a.line, "data-line": a.line, text: label(a), class: a.passed ? "passed" : "failed" })],
    ["task", (a) => String(a.task ?? ""), (a) => String(a.task ?? "")],
    ["verdict", (a) => (a.passed ? 1 : 0), (a) => el("span", { class: a.passed ? "up" : "down", text: verdictOf(a) })],
    ["score", (a) => a.score ?? -1, (a) => (a.score ?? "-")],
    ["model score", (a) => a.model_score ?? -1, (a) => (a.model_score ?? "-")],
    ["final score", (a) => a.final_score ?? -1, (a) => (a.final_score ?? "-")],
    ["false claims", (a) => falseClaims(a), (a) => falseClaims(a)],
    ["slop", (a) => (a.slop || []).length, (a) => (a.slop || []).length],
    ["leaks", (a) => a.leaks || 0, (a) => a.leaks || 0],
  ];
  let sortColumn = 0, sortDirection = 1;
  const falseClaims = (answer) => (answer.claims || []).filter((claim) => claim.false).length;
  function verdictOf(answer) {
    if (!answer.graded) return "not graded";
    if (answer.format !== "kite") return answer.valid ? "valid " + answer.format : "invalid " + answer.format;
    return answer.passed ? (answer.passes === null ? "compiles" : "passes") : answer.passes === false ? "fails" : "does not compile";
  }

  function sortVisible() {
    const key = COLUMNS[sortColumn][1];
    visible = visible.slice().sort((a, b) => { const x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : a.line - b.line) * sortDirection; });
    for (const [index, heading] of document.querySelectorAll("#answer-table th").entries()) {
      heading.setAttribute("aria-sort", index === sortColumn ? (sortDirection > 0 ? "ascending" : "descending") : "none");
    }
  }

  function renderList() {
    const list = document.getElementById("answer-list");
    list.replaceChildren(...visible.slice(0, shown).map((answer) =>
      el("tr", { "data-line": answer.line, class: selected && selected.line === answer.line ? "selected" : null },
        ...COLUMNS.map(([name, , cell]) => { const value = cell(answer); return value instanceof Node ? el("td", {}, value) : el("td", { class: typeof value === "number" ? "number" : null, text: String(value) }); }))));
    for (const link of list.querySelectorAll("a")) if (selected && link.dataset.line === String(selected.line)) link.classList.add("selected");
    document.getElementById("more").hidden = visible.length <= shown;
  }

  function renderTableHead() {
    const row = document.querySelector("#answer-table thead tr");
    row.replaceChildren(...COLUMNS.map(([name], index) => {
      const heading = el("th", { "data-column": index, tabindex: 0, title: "sort by " + name }, name);
      heading.addEventListener("click", () => {
        sortDirection = sortColumn === index ? -sortDirection : 1;
        sortColumn = index;
        sortVisible();
        renderList();
      });
      return heading;
    }));
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

  function codeBlock(answer, block, index, marks) {
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
      for (const piece of pieces(text, lineStart, shownEnd, [tokens.slice(firstToken, lastToken), ranges, marks])) {
        const token = piece.covering.find((item) => item.cls !== undefined);
        const range = piece.covering.find((item) => item.d);
        const classes = [token ? token.cls : null, range ? "diag-range " + range.d.severity : null].filter(Boolean).join(" ") || null;
        const covering = piece.covering.filter((item) => item.key);
        // A claim or slop phrase inside a block (made-up output) is marked where it lies, as in the prose.
        line.append(covering.length ? el("mark", { class: [...new Set(covering.map((mark) => mark.classes))].join(" ") + (classes ? " " + classes : ""),
          "data-block-marks": covering.map((mark) => mark.key).join(" "), title: covering.map((mark) => mark.why).join("\n"), text: piece.text })
          : el("span", { class: classes, text: piece.text }));
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

  function testMessage(answer, test) {
    // A timed-out test says the limit it ran past; a crash says what ended it.
    if (test.status === "timeout" && !test.message) return "ran past its limit of " + (answer.limits ? answer.limits.timeout_seconds + " s" : "time") + " and was stopped";
    if (test.status === "crash" && !test.message) return "the test process ended without a message";
    return test.message || "";
  }

  function testTable(answer, title, tests) {
    if (!tests || !tests.length) return null;
    return el("div", {}, el("h3", { text: title }), table(null, ["test", "status", "message"], tests.map((test) =>
      [test.name, el("span", { class: "status-" + test.status, text: test.status }), el("span", { class: "message", text: testMessage(answer, test) })])));
  }

  function whereIn(answer, start, end) {
    const blocks = answer.blocks || [];
    const inside = blocks.findIndex((block) => start < block.end && end > block.start);
    if (inside < 0) return "in the prose";
    const block = blocks[inside];
    const whole = start >= block.start && end <= block.end;
    return (whole ? "in block " : "partly in block ") + (inside + 1) + " (" + (block.language || "untagged") + ")";
  }

  function claimList(answer) {
    const claims = answer.claims || [], slop = answer.slop || [];
    if (!claims.length && !slop.length) return null;
    const items = claims.map((claim, i) => el("li", { class: "claim-item" + (claim.false ? " false" : ""), "data-item": "claim-" + i },
      el("strong", { text: (claim.false ? "false claim" : "claim") + " (" + claim.kind + ")" }), " " + whereIn(answer, claim.start, claim.end) + ": ",
      el("q", { text: claim.sentence }), claim.false && claim.reason ? " — " + claim.reason : ""));
    items.push(...slop.map((hit, i) => el("li", { class: "slop-item", "data-item": "slop-" + i },
      el("strong", { text: "slop (" + hit.category + ")" }), " " + whereIn(answer, hit.start, hit.end) + ": ", el("q", { text: hit.phrase }))));
    return el("div", { id: "claims" }, el("h3", { text: "Claims and slop (" + claims.length + " claims, " + claims.filter((c) => c.false).length + " false; " + slop.length + " slop)" }),
      el("ul", { class: "claim-list" }, ...items));
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
        body.append(codeBlock(answer, block, index, marks));
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
    parts.push(claimList(answer));
    parts.push(testTable(answer, "Hidden tests", answer.tests));
    parts.push(testTable(answer, "The answer's own tests (reported apart)", answer.own_tests));
    article.replaceChildren(...parts.filter(Boolean));
    const prompt = document.getElementById("prompt");
    const text = data.prompts && answer.task !== null && answer.task !== undefined ? data.prompts[String(answer.task)] : undefined;
    prompt.replaceChildren(el("h3", { text: "The task's prompt" + (answer.task !== null && answer.task !== undefined ? " (" + answer.task + ")" : "") }),
      text !== undefined ? el("div", { class: "prose", text }) : el("p", { class: "hint", text: data.prompts ? "no prompt.md for this task"
        : "prompts not included: give kite report --tasks TASKS_DIR" }));
    article.dataset.line = String(answer.line);
    for (const link of document.querySelectorAll("#answer-list .selected")) link.classList.remove("selected");
    for (const link of document.querySelectorAll('#answer-list [data-line="' + answer.line + '"]')) link.classList.add("selected");
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
  renderTableHead();
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
