// A small stand-in for Google Charts, served in place of www.gstatic.com/charts/loader.js when
// xprof's pages are screenshotted on a machine that cannot reach Google (ci/*-screenshot.sh).
// xprof's own server computes every figure; only the widget that draws its data tables and
// charts is this one: plain HTML tables and simple SVG line charts, so the pictures are labelled
// as drawn by a stand-in. Implements the part of the google.visualization API xprof calls.
(function () {
  "use strict";
  function cell(c) {
    if (c === null || c === undefined) return { v: null, f: null };
    if (typeof c === "object" && !(c instanceof Date)) return { v: c.v, f: c.f };
    return { v: c, f: null };
  }
  function fmt(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "number") {
      return Number.isInteger(v) ? v.toLocaleString("en-US")
        : v.toLocaleString("en-US", { maximumFractionDigits: 3 });
    }
    return String(v);
  }
  function DataTable(data) {
    this.cols = [];
    this.rows = [];
    this.p = {};
    if (typeof data === "string") data = JSON.parse(data);
    if (data) {
      this.cols = (data.cols || []).map((c) => Object.assign({ label: "", id: "", type: "string", p: {} }, c));
      this.rows = (data.rows || []).map((r) => ({ c: (r.c || []).map(cell), p: r.p || {} }));
      this.p = data.p || {};
    }
  }
  DataTable.prototype = {
    getNumberOfRows() { return this.rows.length; },
    getNumberOfColumns() { return this.cols.length; },
    getColumnLabel(i) { return this.cols[i].label || this.cols[i].id || ""; },
    getColumnId(i) { return this.cols[i].id || ""; },
    getColumnType(i) { return this.cols[i].type || "string"; },
    getColumnProperty(i, k) { return (this.cols[i].p || {})[k]; },
    getColumnProperties(i) { return this.cols[i].p || {}; },
    getColumnIndex(id) {
      return this.cols.findIndex((c) => c.id === id || c.label === id);
    },
    getValue(r, c) { const x = this.rows[r].c[c]; return x ? x.v : null; },
    getFormattedValue(r, c) {
      const x = this.rows[r].c[c];
      if (!x) return "";
      return x.f !== null && x.f !== undefined ? x.f : fmt(x.v);
    },
    setValue(r, c, v) { this.rows[r].c[c] = { v: v, f: null }; },
    setFormattedValue(r, c, f) { (this.rows[r].c[c] = this.rows[r].c[c] || { v: null }).f = f; },
    setCell(r, c, v, f) { this.rows[r].c[c] = { v: v, f: f === undefined ? null : f }; },
    getProperty(r, c, k) { const x = this.rows[r].c[c]; return x && x.p ? x.p[k] : undefined; },
    getProperties(r, c) { const x = this.rows[r].c[c]; return (x && x.p) || {}; },
    setProperty(r, c, k, v) { const x = (this.rows[r].c[c] = this.rows[r].c[c] || { v: null, f: null }); (x.p = x.p || {})[k] = v; },
    setProperties(r, c, p) { const x = (this.rows[r].c[c] = this.rows[r].c[c] || { v: null, f: null }); x.p = p; },
    setRowProperty(r, k, v) { (this.rows[r].p = this.rows[r].p || {})[k] = v; },
    setColumnProperty(i, k, v) { (this.cols[i].p = this.cols[i].p || {})[k] = v; },
    setColumnLabel(i, l) { this.cols[i].label = l; },
    getRowProperty(r, k) { return (this.rows[r].p || {})[k]; },
    getTableProperty(k) { return this.p[k]; },
    setTableProperty(k, v) { this.p[k] = v; },
    addColumn(t, label, id) {
      const c = typeof t === "object" ? Object.assign({ p: {} }, t) : { type: t, label: label || "", id: id || "", p: {} };
      this.cols.push(c);
      this.rows.forEach((r) => r.c.push({ v: null, f: null }));
      return this.cols.length - 1;
    },
    addRow(cells) {
      this.rows.push({ c: (cells || this.cols.map(() => null)).map(cell), p: {} });
      return this.rows.length - 1;
    },
    addRows(n) {
      if (typeof n === "number") { for (let i = 0; i < n; i++) this.addRow(); } else n.forEach((r) => this.addRow(r));
      return this.rows.length - 1;
    },
    removeColumn(i) { this.cols.splice(i, 1); this.rows.forEach((r) => r.c.splice(i, 1)); },
    getDistinctValues(c) {
      const s = new Set(this.rows.map((r, i) => this.getValue(i, c)));
      return Array.from(s).sort();
    },
    getSortedRows(spec) {
      const idx = this.rows.map((_, i) => i);
      const specs = (Array.isArray(spec) ? spec : [spec]).map((s) => (typeof s === "number" ? { column: s } : s));
      idx.sort((a, b) => {
        for (const s of specs) {
          const x = this.getValue(a, s.column), y = this.getValue(b, s.column);
          if (x === y) continue;
          const d = x < y ? -1 : 1;
          return s.desc ? -d : d;
        }
        return 0;
      });
      return idx;
    },
    sort(spec) {
      const order = this.getSortedRows(spec);
      this.rows = order.map((i) => this.rows[i]);
    },
    getFilteredRows(filters) {
      return this.rows.map((_, i) => i).filter((i) => filters.every((f) => {
        const v = this.getValue(i, f.column);
        if (f.test) return f.test(v, i, f.column, this);
        if ("value" in f) return v === f.value;
        if ("minValue" in f && v < f.minValue) return false;
        if ("maxValue" in f && v > f.maxValue) return false;
        return true;
      }));
    },
    clone() { return new DataTable(JSON.parse(this.toJSON())); },
    toJSON() { return JSON.stringify({ cols: this.cols, rows: this.rows, p: this.p }); },
  };
  function DataView(dt) {
    this.dt = dt;
    this.columns = null;
    this.rowIdx = null;
  }
  DataView.prototype = {
    cols_() { return this.columns || this.dt.cols.map((_, i) => i); },
    rows_() { return this.rowIdx || this.dt.rows.map((_, i) => i); },
    setColumns(cs) { this.columns = cs; },
    hideColumns(hide) { this.columns = this.cols_().filter((c) => hide.indexOf(c) < 0); },
    setRows(a, b) { this.rowIdx = Array.isArray(a) ? a.slice() : Array.from({ length: b - a + 1 }, (_, i) => a + i); },
    hideRows(hide) { this.rowIdx = this.rows_().filter((r) => hide.indexOf(r) < 0); },
    getNumberOfRows() { return this.rows_().length; },
    getNumberOfColumns() { return this.cols_().length; },
    col_(i) { return this.cols_()[i]; },
    getColumnLabel(i) { const c = this.col_(i); return typeof c === "object" ? c.label || "" : this.dt.getColumnLabel(c); },
    getColumnId(i) { const c = this.col_(i); return typeof c === "object" ? c.id || "" : this.dt.getColumnId(c); },
    getColumnType(i) { const c = this.col_(i); return typeof c === "object" ? c.type || "string" : this.dt.getColumnType(c); },
    getColumnProperty(i, k) { const c = this.col_(i); return typeof c === "object" ? (c.p || {})[k] : this.dt.getColumnProperty(c, k); },
    getColumnIndex(id) { return this.cols_().findIndex((c) => (typeof c === "object" ? c.id === id : this.dt.getColumnId(c) === id || this.dt.getColumnLabel(c) === id)); },
    getTableRowIndex(r) { return this.rows_()[r]; },
    getViewRowIndex(r) { return this.rows_().indexOf(r); },
    getValue(r, i) {
      const c = this.col_(i), tr = this.rows_()[r];
      if (typeof c === "object") return c.calc ? c.calc(this.dt, tr) : this.dt.getValue(tr, c.sourceColumn);
      return this.dt.getValue(tr, c);
    },
    getFormattedValue(r, i) {
      const c = this.col_(i), tr = this.rows_()[r];
      if (typeof c === "object") return c.calc ? fmt(c.calc(this.dt, tr)) : this.dt.getFormattedValue(tr, c.sourceColumn);
      return this.dt.getFormattedValue(tr, c);
    },
    getProperty(r, i, k) { const c = this.col_(i); return typeof c === "object" ? undefined : this.dt.getProperty(this.rows_()[r], c, k); },
    getRowProperty(r, k) { return this.dt.getRowProperty(this.rows_()[r], k); },
    getTableProperty(k) { return this.dt.getTableProperty(k); },
    getDistinctValues(i) { return Array.from(new Set(this.rows_().map((_, r) => this.getValue(r, i)))).sort(); },
    getSortedRows(spec) {
      const specs = (Array.isArray(spec) ? spec : [spec]).map((s) => (typeof s === "number" ? { column: s } : s));
      const idx = this.rows_().map((_, i) => i);
      idx.sort((a, b) => {
        for (const s of specs) {
          const x = this.getValue(a, s.column), y = this.getValue(b, s.column);
          if (x === y) continue;
          const d = x < y ? -1 : 1;
          return s.desc ? -d : d;
        }
        return 0;
      });
      return idx;
    },
    getFilteredRows(filters) {
      return this.rows_().map((_, i) => i).filter((i) => filters.every((f) => {
        const v = this.getValue(i, f.column);
        if (f.test) return f.test(v, i, f.column, this);
        if ("value" in f) return v === f.value;
        return true;
      }));
    },
    toDataTable() {
      const dt = new DataTable();
      for (let i = 0; i < this.getNumberOfColumns(); i++) dt.addColumn(this.getColumnType(i), this.getColumnLabel(i), this.getColumnId(i));
      for (let r = 0; r < this.getNumberOfRows(); r++) {
        dt.addRow(Array.from({ length: this.getNumberOfColumns() }, (_, i) => ({ v: this.getValue(r, i), f: this.getFormattedValue(r, i) })));
      }
      return dt;
    },
  };
  function NumberFormat(o) { this.o = o || {}; }
  NumberFormat.prototype.format = function (dt, col) {
    const o = this.o, d = o.fractionDigits;
    for (let r = 0; r < dt.getNumberOfRows(); r++) {
      const v = dt.getValue(r, col);
      if (typeof v !== "number") continue;
      const s = (o.prefix || "") + v.toLocaleString("en-US", d === undefined ? { maximumFractionDigits: 3 } : { minimumFractionDigits: d, maximumFractionDigits: d }) + (o.suffix || "");
      dt.setFormattedValue(r, col, s);
    }
  };
  NumberFormat.prototype.formatValue = function (v) { return fmt(v); };
  function PatternFormat() {}
  PatternFormat.prototype.format = function () {};
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    Object.assign(e.style, attrs || {});
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function Table(container) { this.container = container; }
  Table.prototype.draw = function (data, opts) {
    const c = this.container;
    c.innerHTML = "";
    const t = el("table", { borderCollapse: "collapse", font: "12px Roboto, Arial, sans-serif", width: "100%" });
    const head = el("tr", { background: "#eef1f5" });
    const n = data.getNumberOfColumns();
    for (let i = 0; i < n; i++) head.appendChild(el("th", { border: "1px solid #ccc", padding: "3px 6px", textAlign: "left" }, data.getColumnLabel(i)));
    t.appendChild(head);
    const rows = Math.min(data.getNumberOfRows(), (opts && opts.pageSize) || 50);
    for (let r = 0; r < rows; r++) {
      const tr = el("tr", { background: r % 2 ? "#fafafa" : "#fff" });
      for (let i = 0; i < n; i++) {
        const num = data.getColumnType(i) === "number";
        tr.appendChild(el("td", { border: "1px solid #e0e0e0", padding: "3px 6px", textAlign: num ? "right" : "left" }, data.getFormattedValue(r, i)));
      }
      t.appendChild(tr);
    }
    c.appendChild(t);
    c.appendChild(el("div", { font: "11px Arial", color: "#888", marginTop: "4px" }, "table drawn by a local stand-in for Google Charts (offline machine); data from xprof"));
  };
  Table.prototype.setSelection = function () {};
  Table.prototype.getSelection = function () { return []; };
  Table.prototype.clearChart = function () {};
  function Chart(container) { this.container = container; }
  Chart.prototype.draw = function (data, opts) {
    const c = this.container, W = c.clientWidth || 800, H = (opts && opts.height) || c.clientHeight || 300;
    c.innerHTML = "";
    const n = data.getNumberOfRows(), m = data.getNumberOfColumns();
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", W); svg.setAttribute("height", H);
    let xs = [], ys = [];
    for (let r = 0; r < n; r++) {
      xs.push(Number(data.getValue(r, 0)) || r);
      for (let i = 1; i < m; i++) if (typeof data.getValue(r, i) === "number") ys.push(data.getValue(r, i));
    }
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y1 = Math.max(1, ...ys);
    const px = (x) => 50 + ((x - x0) / Math.max(1e-9, x1 - x0)) * (W - 70), py = (y) => H - 30 - (y / y1) * (H - 50);
    const colors = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099"];
    for (let i = 1; i < m; i++) {
      if (data.getColumnType(i) !== "number") continue;
      const pts = [];
      for (let r = 0; r < n; r++) { const v = data.getValue(r, i); if (typeof v === "number") pts.push(px(xs[r]) + "," + py(v)); }
      const pl = document.createElementNS(ns, "polyline");
      pl.setAttribute("points", pts.join(" ")); pl.setAttribute("fill", "none");
      pl.setAttribute("stroke", colors[(i - 1) % colors.length]); pl.setAttribute("stroke-width", "2");
      svg.appendChild(pl);
      const lg = document.createElementNS(ns, "text");
      lg.setAttribute("x", 60 + (i - 1) * 180); lg.setAttribute("y", 14); lg.setAttribute("font-size", "12");
      lg.setAttribute("fill", colors[(i - 1) % colors.length]); lg.textContent = data.getColumnLabel(i);
      svg.appendChild(lg);
    }
    const ax = document.createElementNS(ns, "text");
    ax.setAttribute("x", 50); ax.setAttribute("y", H - 8); ax.setAttribute("font-size", "11"); ax.setAttribute("fill", "#888");
    ax.textContent = "chart drawn by a local stand-in for Google Charts (offline machine); data from xprof — max " + fmt(y1);
    svg.appendChild(ax);
    c.appendChild(svg);
  };
  Chart.prototype.setSelection = function () {};
  Chart.prototype.getSelection = function () { return []; };
  Chart.prototype.clearChart = function () {};
  const charts = {};
  ["AreaChart", "BarChart", "ColumnChart", "ComboChart", "LineChart", "PieChart", "ScatterChart",
    "SteppedAreaChart", "Histogram", "CandlestickChart", "BubbleChart"].forEach((k) => { charts[k] = Chart; });
  const viz = Object.assign({
    DataTable, DataView, NumberFormat, PatternFormat, Table,
    arrayToDataTable(a) {
      const dt = new DataTable();
      a[0].forEach((h, i) => dt.addColumn(typeof a[1] && typeof a[1][i] === "number" ? "number" : "string", String(h)));
      a.slice(1).forEach((r) => dt.addRow(r));
      return dt;
    },
    events: { addListener() { return {}; }, removeListener() {}, trigger() {}, removeAllListeners() {} },
    data: { group(dt) { return dt; }, sum(v) { return v.reduce((a, b) => a + b, 0); }, count(v) { return v.length; }, max(v) { return Math.max(...v); }, min(v) { return Math.min(...v); }, avg(v) { return v.reduce((a, b) => a + b, 0) / (v.length || 1); } },
  }, charts);
  const cbs = [];
  window.google = window.google || {};
  window.google.visualization = viz;
  window.google.charts = {
    load() { setTimeout(() => cbs.splice(0).forEach((f) => f()), 0); },
    safeLoad() { setTimeout(() => cbs.splice(0).forEach((f) => f()), 0); },
    setOnLoadCallback(f) { cbs.push(f); setTimeout(() => cbs.splice(0).forEach((g) => g()), 0); },
  };
})();
