// blox report: the runs table (sort, filter, pages of rows), per-run drill-downs drawn as SVG
// when opened, and sorting of the other tables. No framework; text goes into the page through
// textContent only, never as markup.
(function () {
  "use strict";
  var errors = document.getElementById("js-errors");
  function report(message) {
    if (!errors) return;
    errors.hidden = false;
    errors.textContent += (errors.textContent ? "\n" : "") + "Script error: " + message;
  }
  window.addEventListener("error", function (event) { report(event.message || String(event.error)); });

  var SVG = "http://www.w3.org/2000/svg";
  // Okabe-Ito: distinguishable with the common colour-vision deficiencies.
  var COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];
  var DASHES = ["", "6 3", "2 3", "8 3 2 3"];
  var PAGE_ROWS = 200;
  var UNITS = { s: 1, min: 60, h: 3600 };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var name in attrs || {}) node.setAttribute(name, attrs[name]);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function svgEl(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    for (var name in attrs || {}) node.setAttribute(name, attrs[name]);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function fmt(value) {
    if (value === null || value === undefined) return "";
    if (typeof value !== "number") return String(value);
    if (!isFinite(value)) return "";
    if (Number.isInteger(value) && Math.abs(value) < 1e9) return String(value);
    var abs = Math.abs(value);
    if (abs >= 1000) return value.toFixed(1);
    if (abs >= 1) return value.toFixed(3);
    if (abs === 0) return "0";
    return value.toPrecision(3);
  }
  function compare(a, b) {
    var aNone = a === null || a === undefined, bNone = b === null || b === undefined;
    if (aNone || bNone) return aNone === bNone ? 0 : aNone ? 1 : -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b), undefined, { numeric: true });
  }

  // Sorting for tables written as HTML (comparison pairings).
  function makeSortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, column) {
      th.setAttribute("tabindex", "0");
      function sort() {
        var descending = th.getAttribute("aria-sort") === "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (row) {
          var text = row.cells[column] ? row.cells[column].textContent : "";
          var number = Number(text);
          return text !== "" && !isNaN(number) ? number : text === "" ? null : text;
        };
        rows.sort(function (a, b) { var c = compare(key(a), key(b)); return descending ? -c : c; });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);

  var dataNode = document.getElementById("report-data");
  var data = dataNode ? JSON.parse(dataNode.textContent) : {};
  if (!data.runs) return;

  var runs = data.runs;
  var count = runs.run_key.length;
  var unitSelect = document.getElementById("time-unit");
  unitSelect.value = data.time_unit;
  var state = { sort: null, descending: false, filters: {}, shown: PAGE_ROWS, open: null };

  function unitName() { return unitSelect.value; }
  function shown(column, value) {
    if (value === null || value === undefined) return value;
    if (column.unit === "s") return value / UNITS[unitName()];
    if (column.unit === "%") return value * 100;
    return value;
  }

  // Columns: the run, its state, the grid keys that vary, then every metric with a value.
  var constant = [];
  var keyColumns = data.keys.filter(function (key) {
    var values = {};
    runs[key].forEach(function (v) { values[JSON.stringify(v)] = true; });
    var distinct = Object.keys(values).filter(function (v) { return v !== "null"; });
    if (distinct.length <= 1) {
      if (distinct.length === 1) constant.push(key + " = " + fmt(JSON.parse(distinct[0])));
      return false;
    }
    return true;
  });
  var metricColumns = data.metrics.filter(function (m) {
    return runs[m.name].some(function (v) { return v !== null; });
  });
  var columns = [{ name: "run_key", caption: "Run", text: true }, { name: "status", caption: "Status", text: true }]
    .concat(keyColumns.map(function (k) { return { name: k, caption: k, text: typeof runs[k].find(function (v) { return v !== null; }) !== "number" }; }))
    .concat(metricColumns.map(function (m) { return { name: m.name, caption: m.caption, unit: m.unit }; }));

  // Filters: one list per grid key that varies, and the status.
  var filters = document.getElementById("filters");
  ["status"].concat(keyColumns).forEach(function (key) {
    var values = [];
    runs[key].forEach(function (v) { if (v !== null && values.indexOf(v) < 0) values.push(v); });
    values.sort(compare);
    var select = el("select", { "data-key": key });
    select.appendChild(el("option", { value: "" }, "all"));
    values.forEach(function (v, i) { select.appendChild(el("option", { value: String(i) }, fmt(v))); });
    select.addEventListener("change", function () {
      if (select.value === "") delete state.filters[key];
      else state.filters[key] = values[Number(select.value)];
      state.shown = PAGE_ROWS;
      render();
    });
    var label = el("label", {}, key + " ");
    label.appendChild(select);
    filters.appendChild(label);
  });
  var search = el("input", { type: "search", placeholder: "run key contains", "aria-label": "filter by run key" });
  search.addEventListener("input", function () { state.shown = PAGE_ROWS; render(); });
  filters.appendChild(search);
  if (constant.length) {
    filters.parentNode.insertBefore(el("p", { class: "note" }, "Same for every run: " + constant.join(", ")), filters);
  }

  var table = document.getElementById("runs-table");
  var headRow = el("tr");
  columns.forEach(function (column) {
    var unit = column.unit === "%" ? " (%)" : "";
    var th = el("th", { scope: "col", tabindex: "0", title: column.name, class: column.text ? "text" : "" }, column.caption + unit);
    if (column.unit === "s") th.appendChild(el("span", { class: "unit" }));
    function sort() {
      if (state.sort === column.name) state.descending = !state.descending;
      else { state.sort = column.name; state.descending = false; }
      render();
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    column.th = th;
    headRow.appendChild(th);
  });
  table.tHead.appendChild(headRow);

  function selected() {
    var needle = search.value.trim().toLowerCase();
    var rows = [];
    for (var i = 0; i < count; i++) {
      var keep = true;
      for (var key in state.filters) if (runs[key][i] !== state.filters[key]) { keep = false; break; }
      if (keep && needle && runs.run_key[i].toLowerCase().indexOf(needle) < 0) keep = false;
      if (keep) rows.push(i);
    }
    if (state.sort) {
      var values = runs[state.sort], sign = state.descending ? -1 : 1;
      rows.sort(function (a, b) { return sign * compare(values[a], values[b]) || a - b; });
    }
    return rows;
  }

  function render() {
    columns.forEach(function (column) {
      if (state.sort === column.name) column.th.setAttribute("aria-sort", state.descending ? "descending" : "ascending");
      else column.th.removeAttribute("aria-sort");
      var span = column.th.querySelector(".unit");
      if (span) span.textContent = " (" + unitName() + ")";
    });
    var rows = selected();
    var body = table.tBodies[0];
    var fragment = document.createDocumentFragment();
    rows.slice(0, state.shown).forEach(function (i) {
      var tr = el("tr", { "data-run": runs.run_key[i] });
      if (state.open === i) tr.className = "selected";
      columns.forEach(function (column) {
        var td = el("td", { class: column.text ? "text" : "" });
        var value = runs[column.name][i];
        if (column.name === "run_key") {
          var button = el("button", { type: "button", class: "run" }, value);
          button.addEventListener("click", function () { openDrill(i); });
          td.appendChild(button);
        } else if (column.name === "status") {
          td.appendChild(el("span", { class: "status " + value }, value));
          if (runs.message[i]) td.title = runs.message[i];
        } else {
          td.textContent = fmt(shown(column, value));
        }
        tr.appendChild(td);
      });
      fragment.appendChild(tr);
    });
    body.textContent = "";
    body.appendChild(fragment);
    var showing = Math.min(rows.length, state.shown);
    document.getElementById("runs-count").textContent =
      rows.length + " of " + count + " runs" + (showing < rows.length ? ", the first " + showing + " shown" : "");
    var more = document.getElementById("more-rows");
    more.hidden = showing >= rows.length;
  }
  document.getElementById("more-rows").addEventListener("click", function () { state.shown += PAGE_ROWS; render(); });
  unitSelect.addEventListener("change", function () { render(); if (state.open !== null) openDrill(state.open); });

  // Charts of a drill-down: lines and bars on linear axes.
  function ticks(min, max, n) {
    if (!(max > min)) return [min];
    var step = Math.pow(10, Math.floor(Math.log10((max - min) / n)));
    var err = (max - min) / n / step;
    step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
    return out;
  }
  function chart(spec) {
    var legend = !spec.bars && spec.series.length > 1;
    var W = 520, H = 280, L = 58, R = 12, T = legend ? 44 : 28, B = 44;
    var svg = svgEl("svg", { class: "mini", width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": spec.title });
    svg.appendChild(svgEl("title", {}, spec.title));
    var xs = [], ys = [0];
    spec.series.forEach(function (s) { xs = xs.concat(s.x); ys = ys.concat(s.y); });
    if (spec.yMax !== undefined) ys.push(spec.yMax);
    if (!xs.length) {
      svg.appendChild(svgEl("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no data"));
      return svg;
    }
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (spec.bars) { x0 -= 0.5; x1 += 0.5; }
    if (x1 === x0) { x1 = x0 + 1; }
    if (y1 === y0) { y1 = y0 + 1; }
    var px = function (x) { return L + (x - x0) / (x1 - x0) * (W - L - R); };
    var py = function (y) { return H - B - (y - y0) / (y1 - y0) * (H - T - B); };
    svg.appendChild(svgEl("text", { x: L, y: 16, "font-weight": "bold" }, spec.title));
    ticks(y0, y1, 5).forEach(function (t) {
      svg.appendChild(svgEl("line", { x1: L, x2: W - R, y1: py(t), y2: py(t), class: "grid" }));
      svg.appendChild(svgEl("text", { x: L - 4, y: py(t) + 4, "text-anchor": "end" }, fmt(t)));
    });
    (spec.bars ? spec.series[0].x : ticks(x0, x1, 6)).forEach(function (t) {
      svg.appendChild(svgEl("text", { x: px(t), y: H - B + 14, "text-anchor": "middle" }, spec.xTick ? spec.xTick(t) : fmt(t)));
    });
    svg.appendChild(svgEl("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
    svg.appendChild(svgEl("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
    svg.appendChild(svgEl("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, spec.xLabel));
    svg.appendChild(svgEl("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle", transform: "rotate(-90 12 " + (T + H - B) / 2 + ")" }, spec.yLabel));
    spec.series.forEach(function (s, index) {
      var color = COLORS[index % COLORS.length];
      if (spec.bars) {
        var width = (W - L - R) / (x1 - x0) * 0.7;
        s.x.forEach(function (x, i) {
          var bar = svgEl("rect", { x: px(x) - width / 2, y: py(s.y[i]), width: width, height: py(0) - py(s.y[i]), fill: color });
          bar.appendChild(svgEl("title", {}, (spec.xTick ? spec.xTick(x) : fmt(x)) + ": " + fmt(s.y[i])));
          svg.appendChild(bar);
        });
        return;
      }
      var points = s.x.map(function (x, i) { return px(x).toFixed(1) + "," + py(s.y[i]).toFixed(1); }).join(" ");
      svg.appendChild(svgEl("polyline", { points: points, fill: "none", stroke: color, "stroke-width": 1.8, "stroke-dasharray": DASHES[index % DASHES.length] }));
      if (legend) {
        var lx = L + index * 120;
        svg.appendChild(svgEl("line", { x1: lx, x2: lx + 22, y1: 30, y2: 30, stroke: color, "stroke-width": 2, "stroke-dasharray": DASHES[index % DASHES.length] }));
        svg.appendChild(svgEl("text", { x: lx + 26, y: 34 }, s.name));
      }
    });
    return svg;
  }

  function openDrill(i) {
    state.open = i;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
      tr.className = tr.getAttribute("data-run") === runs.run_key[i] ? "selected" : "";
    });
    var panel = document.getElementById("drill");
    panel.textContent = "";
    panel.hidden = false;
    var close = el("button", { type: "button" }, "Close");
    close.addEventListener("click", function () { panel.hidden = true; state.open = null; render(); });
    var heading = el("h3", {}, "Run " + runs.run_key[i] + " ");
    heading.appendChild(close);
    panel.appendChild(heading);
    var facts = data.keys.map(function (k) { return k + " = " + fmt(runs[k][i]); }).filter(function (t) { return !/= $/.test(t); });
    panel.appendChild(el("p", { class: "note" }, facts.join(", ")));
    var status = runs.status[i];
    var line = el("p");
    line.appendChild(el("span", { class: "status " + status }, status));
    if (runs.message[i]) line.appendChild(document.createTextNode(" " + runs.message[i]));
    panel.appendChild(line);
    var drill = data.drill[i];
    if (!drill) {
      panel.appendChild(el("p", {}, "No tables to show: the run is not complete."));
      panel.scrollIntoView({ block: "nearest" });
      return;
    }
    if (drill.error) panel.appendChild(el("p", { class: "error" }, drill.error));
    var unit = unitName(), scale = UNITS[unit];
    panel.appendChild(el("p", {}, drill.jobs + " tracked jobs, " + drill.finished + " finished; " + drill.rounds +
      " rounds or decisions in the timeline."));
    var charts = el("div", { class: "drill-charts" });
    charts.appendChild(chart({
      title: "JCT distribution (finished jobs)", xLabel: "JCT (" + unit + ")", yLabel: "fraction of jobs", yMax: 1,
      series: [{ name: "JCT", x: drill.cdf_x.map(function (v) { return v / scale; }), y: drill.cdf_y }]
    }));
    var time = drill.time.map(function (t) { return t / scale; });
    charts.appendChild(chart({
      title: "Queue and cluster over time", xLabel: "time (" + unit + ")", yLabel: "jobs / GPUs",
      series: [
        { name: "queued jobs", x: time, y: drill.queued },
        { name: "running jobs", x: time, y: drill.running },
        { name: "busy GPUs", x: time, y: drill.busy }
      ]
    }));
    charts.appendChild(chart({
      title: "Preemptions over time", xLabel: "time (" + unit + ")", yLabel: "preemptions per bucket",
      series: [{ name: "preemptions", x: time, y: drill.preempted }]
    }));
    var bins = drill.preemptions_per_job;
    charts.appendChild(chart({
      title: "Jobs by preemptions", xLabel: "preemptions of a job", yLabel: "jobs", bars: true,
      xTick: function (x) { return x === 10 ? "10+" : String(x); },
      series: [{ name: "jobs", x: bins.map(function (_, k) { return k; }), y: bins }]
    }));
    panel.appendChild(charts);
    if (drill.attempts_total) {
      panel.appendChild(el("h4", {}, "Attempts (" + drill.attempts_total + (drill.attempts.length < drill.attempts_total ? ", the first " + drill.attempts.length + " listed" : "") + ")"));
      var attempts = el("table", { class: "data" });
      var names = ["job", "attempt", "node", "slots", "launched", "started", "ended", "end", "exit_code", "signal", "stderr"];
      var head = el("tr");
      names.forEach(function (n) { head.appendChild(el("th", { scope: "col" }, n)); });
      attempts.appendChild(el("thead")).appendChild(head);
      var tbody = attempts.appendChild(el("tbody"));
      drill.attempts.forEach(function (a) {
        var tr = el("tr");
        names.forEach(function (n) {
          var td = el("td", { class: typeof a[n] === "number" ? "" : "text" }, fmt(a[n]));
          tr.appendChild(td);
        });
        tbody.appendChild(tr);
      });
      var wrap = el("div", { class: "scroll" });
      wrap.appendChild(attempts);
      panel.appendChild(wrap);
    }
    panel.scrollIntoView({ block: "nearest" });
  }

  // The address may ask for a sort and a drill-down: #sort=avg_jct_s (-avg_jct_s descending),
  // #run=<run key>, joined by &.
  location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var eq = part.indexOf("="), name = part.slice(0, eq), value = decodeURIComponent(part.slice(eq + 1));
    if (name === "sort") {
      state.descending = value.charAt(0) === "-";
      state.sort = value.replace(/^-/, "");
      if (!runs[state.sort]) state.sort = null;
    } else if (name === "run") {
      state.open = runs.run_key.indexOf(value);
    }
  });
  render();
  if (state.open !== null && state.open >= 0) openDrill(state.open);
  else state.open = null;
})();
