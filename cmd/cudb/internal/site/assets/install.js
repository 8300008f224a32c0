// cudb install selector. Every judgement was made by cudb's Go code when
// the site was built (data/install.js): resolve's answer per framework
// version, OS and package manager, each stack's kernel check per GPU
// compute capability, and each offered driver's verdict per CUDA version.
// This script only filters and ranks them the way resolve does.
(function () {
  "use strict";
  var body = document.body;
  var data = window.cudbInstall;
  var $ = function (id) { return document.getElementById(id); };
  var sel = { fw: $("sel-fw"), v: $("sel-v"), os: $("sel-os"), pm: $("sel-pm"), gpu: $("sel-gpu"), driver: $("sel-driver") };

  function option(select, value, text) {
    var o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    select.appendChild(o);
  }
  function fill(select, items, keepFirst) {
    var old = select.value;
    while (select.options.length > (keepFirst ? 1 : 0)) select.remove(select.options.length - 1);
    items.forEach(function (it) { option(select, it[0], it[1]); });
    if (items.some(function (it) { return it[0] === old; })) select.value = old;
  }
  function param(name) {
    var m = new RegExp("(?:^|[?&])" + name + "=([^&]*)").exec(location.search);
    return m ? decodeURIComponent(m[1].replace(/\+/g, " ")) : null;
  }
  function framework() {
    return data.frameworks.filter(function (f) { return f.name === sel.fw.value; })[0] || data.frameworks[0];
  }
  function key(pm) { return [sel.fw.value, sel.v.value, sel.os.value, pm].join(" "); }

  function dottedCmp(a, b) {
    var x = (a || "").split("."), y = (b || "").split(".");
    for (var i = 0; i < Math.max(x.length, y.length); i++) {
      var d = (parseInt(x[i] || "0", 10) || 0) - (parseInt(y[i] || "0", 10) || 0);
      if (d !== 0) return d;
    }
    return 0;
  }
  // better is resolve's ranking within one release: known before unknown,
  // the default variant, the newest CUDA, then the variant name.
  function better(a, b) {
    if ((a.status === "unknown") !== (b.status === "unknown")) return a.status === "unknown" ? 1 : -1;
    if (a.default !== b.default) return a.default ? -1 : 1;
    if (a.cuda !== b.cuda) return dottedCmp(b.cuda, a.cuda);
    return a.variant < b.variant ? -1 : a.variant > b.variant ? 1 : 0;
  }
  function name(s) { return s.variant + (s.cuda ? " (CUDA " + s.cuda + ")" : ""); }

  function refreshOptions() {
    fill(sel.fw, data.frameworks.map(function (f) { return [f.name, f.label]; }));
    fill(sel.v, framework().versions.map(function (v) { return [v, v]; }));
    var pms = ["pip", "conda"].filter(function (pm) { return data.answers[key(pm)]; });
    fill(sel.pm, pms.map(function (pm) { return [pm, pm]; }));
    fill(sel.driver, (data.drivers[sel.os.value] || []).map(function (d) { return [d, d]; }), true);
  }

  function answer() {
    var a = data.answers[key(sel.pm.value)];
    var out = { request: "", error: "", stack: null, reasons: [], dropped: 0 };
    if (!a) { out.error = "no answer for this combination"; return out; }
    out.request = a.request;
    if (a.error) { out.error = a.error; return out; }
    var gpu = data.gpus.filter(function (g) { return g.name === sel.gpu.value; })[0];
    var drv = sel.driver.value;
    var verdicts = drv ? data.verdicts[sel.os.value][drv] : null;
    var kept = [];
    a.stacks.forEach(function (s0) {
      var s = JSON.parse(JSON.stringify(s0));
      s.unknown = s.unknown || [];
      s.notes = s.notes || [];
      if (verdicts && s.cuda) {
        var v = verdicts[s.cuda] || { ok: false, reason: "no driver verdict for CUDA " + s.cuda };
        if (!v.ok) { out.reasons.push(name(s) + ": not chosen: " + v.reason); out.dropped++; return; }
        if (v.note) s.notes.push("driver " + drv + ": " + v.note);
      }
      if (gpu) {
        var f = s.fit[gpu.cc];
        s.gpu = f;
        if (!f.keep) { out.reasons.push(name(s) + ": not chosen: no kernels for " + gpu.name + " (compute capability " + gpu.cc + ")" + (f.detail ? ": " + f.detail : "")); out.dropped++; return; }
        if (f.gap) { s.unknown.push(f.gap); if (s.status !== "incompatible") s.status = "unknown"; }
      }
      kept.push(s);
    });
    kept.sort(better);
    if (kept.length === 0) {
      out.error = "no build of " + sel.fw.value + " " + sel.v.value + " fits this " + (gpu && drv ? "GPU and driver" : gpu ? "GPU" : "driver");
      return out;
    }
    out.stack = kept[0];
    var r = ["chosen: " + name(kept[0]) + (kept[0].default ? ", the build plain " + sel.pm.value + " installs" : "") + (kept.length > 1 ? ", ranked first of " + kept.length + " that fit" : "")];
    kept.slice(1).forEach(function (s) { r.push(name(s) + ": fits, ranked lower" + (s.status === "unknown" ? " (a fact is missing)" : "")); });
    kept[0].unknown.forEach(function (u) { r.push("unknown: " + u); });
    kept[0].notes.forEach(function (n) { r.push("note: " + n); });
    out.reasons = r.concat(out.reasons);
    return out;
  }

  function render() {
    var o = answer(), s = o.stack;
    var section = $("install-answer");
    $("ans-request").textContent = o.request + (sel.gpu.value ? " --gpu '" + sel.gpu.value + "'" : "") + (sel.driver.value ? " --driver " + sel.driver.value : "");
    $("ans-status").textContent = o.error ? o.error : "status: " + s.status;
    $("ans-variant").textContent = s ? s.variant + (s.default ? " (default)" : "") : "";
    $("ans-cuda").textContent = s ? s.cuda || "none" : "";
    $("ans-cudnn").textContent = s ? s.cudnn || "not in the data" : "";
    $("ans-python").textContent = s ? s.python.min + " - " + s.python.max : "";
    $("ans-gpu").textContent = s ? (s.gpu ? s.gpu.support + (s.gpu.detail ? ": " + s.gpu.detail : "") : (s.ccs || []).join(" ")) : "";
    var floor = s && s.floor ? (sel.os.value === "windows" ? s.floor.windows_min : s.floor.linux_min) : "";
    $("ans-floor").textContent = floor ? ">= " + floor : s && s.cuda ? "not in the data" : "";
    $("ans-command").textContent = s ? s.command : "";
    var ul = $("ans-reasons");
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    o.reasons.forEach(function (t) { var li = document.createElement("li"); li.textContent = t; ul.appendChild(li); });
    section.setAttribute("data-command", s ? s.command : "");
    section.setAttribute("data-variant", s ? s.variant : "");
    section.setAttribute("data-cuda", s ? s.cuda : "");
    section.setAttribute("data-cudnn", s ? s.cudnn : "");
    section.setAttribute("data-status", s ? s.status : "error");
    section.setAttribute("data-dropped", String(o.dropped));
    // The selection, as a link (keys in alphabetical order).
    var q = ["driver", "fw", "gpu", "os", "pm", "v"].filter(function (k) { return sel[k].value; })
      .map(function (k) { return k + "=" + encodeURIComponent(sel[k].value).replace(/%20/g, "+"); }).join("&");
    section.setAttribute("data-query", q);
    if (history.replaceState) history.replaceState(null, "", location.pathname + "?" + q);
  }

  data.gpus.forEach(function (g) { option(sel.gpu, g.name, g.name + " (sm " + g.cc + ")"); });
  refreshOptions();
  // The URL preselects: ?fw=torch&v=2.1.0&os=linux&pm=pip&gpu=Tesla+T4&driver=525.60.13
  ["fw", "v", "os", "pm", "gpu", "driver"].forEach(function (k) {
    var v = param(k);
    if (v !== null) { sel[k].value = v; refreshOptions(); }
  });
  Object.keys(sel).forEach(function (k) {
    sel[k].addEventListener("change", function () { refreshOptions(); render(); });
  });
  render();
  body.setAttribute("data-install-ready", "1");
})();
