// cudb install selector. Every judgement was made by cudb's Go code when
// the site was built: data/install.js holds the releases, the GPUs, each
// stack's kernel check per compute capability and CheckDriverOS's verdict
// for every range of drivers; data/install/<framework>-<version>.js holds
// one release's resolve answers and the pin file of every stack. This
// script only looks judgements up and ranks them the way resolve does.
(function () {
  "use strict";
  var body = document.body;
  var data = window.cudbInstall;
  var answers = {}, loaded = {}, loading = {};
  var $ = function (id) { return document.getElementById(id); };
  var sel = { fw: $("sel-fw"), v: $("sel-v"), gpu: $("sel-gpu"), driver: $("sel-driver") };
  var pinNames = { requirements: "requirements.txt", uv: "pyproject.toml", conda: "environment.yml" };

  window.cudbInstallRelease = function (a) {
    Object.keys(a).forEach(function (k) { answers[k] = a[k]; });
  };

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
  function radio(name) {
    var r = document.querySelector("input[name=" + name + "]:checked");
    return r ? r.value : "";
  }
  function setRadio(name, value) {
    var r = document.querySelector("input[name=" + name + "][value='" + value + "']");
    if (r && !r.disabled) r.checked = true;
  }
  function param(name) {
    var m = new RegExp("(?:^|[?&])" + name + "=([^&]*)").exec(location.search);
    return m ? decodeURIComponent(m[1].replace(/\+/g, " ")) : null;
  }
  function framework() {
    return data.frameworks.filter(function (f) { return f.name === sel.fw.value; })[0] || data.frameworks[0];
  }
  function manager() {
    return data.managers.filter(function (m) { return m.name === radio("pm"); })[0] || data.managers[0];
  }
  function key(pm) { return [sel.fw.value, sel.v.value, radio("os"), pm].join(" "); }
  function release() { return sel.fw.value + " " + sel.v.value; }

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
  // gap words a missing fact as resolve does: "<framework> <version> <variant>: what".
  function gap(s, what) { return sel.fw.value + " " + sel.v.value + " " + s.variant + ": " + what; }

  // driver reads the typed driver as cudb's ParseDriver does (the form and
  // major range come from Go); the verdicts are Go's, per range of drivers.
  function driver() {
    var raw = sel.driver.value.trim();
    if (raw === "") return { raw: "" };
    var t = raw.replace(/^r/, "").replace(/^R/, "");
    if (!new RegExp(data.driver.pattern).test(t)) return { raw: raw, error: JSON.stringify(raw) + " is not a driver version (a driver version such as 535.104.05, see nvidia-smi)" };
    var major = parseInt(t.split(".")[0], 10);
    if (major < data.driver.min_major || major > data.driver.max_major) return { raw: raw, error: "driver version " + JSON.stringify(raw) + " is out of range" };
    var step = data.driver.os[radio("os")], i = 0;
    while (i < step.breaks.length && dottedCmp(step.breaks[i], t) <= 0) i++;
    var row = data.driver.verdicts[step.rows[i]];
    return {
      raw: raw, version: t, verdict: function (cuda) {
        var p = row[cuda] === undefined ? { ok: false, reason: "no driver verdict for CUDA " + cuda } : data.driver.picks[row[cuda]];
        return { ok: p.ok, note: p.note || "", unknown: p.unknown || "", reason: (p.reason || "").replace("{driver}", t) };
      }
    };
  }

  function refreshOptions() {
    fill(sel.fw, data.frameworks.map(function (f) { return [f.name, f.label]; }));
    fill(sel.v, framework().versions.map(function (v) { return [v, v]; }));
  }
  function refreshManagers() {
    data.managers.forEach(function (m) {
      var r = $("pm-" + m.name);
      r.disabled = loaded[release()] && !answers[key(m.name)];
      r.parentNode.title = r.disabled ? "no " + m.name + " builds of this release in the data" : "";
    });
    if ($("pm-" + radio("pm")).disabled) setRadio("pm", "pip");
    var dl = $("driver-floors");
    while (dl.firstChild) dl.removeChild(dl.firstChild);
    (data.driver.os[radio("os")].breaks || []).slice().reverse().forEach(function (b) { option(dl, b, b); });
  }

  function answer() {
    var pm = manager();
    var a = answers[key(pm.name)];
    var out = { request: "", error: "", stack: null, reasons: [], dropped: 0, format: pm.format };
    if (!a) { out.error = "no " + pm.name + " answer for this combination"; return out; }
    out.request = a.request;
    if (a.error) { out.error = a.error; return out; }
    var drv = driver();
    if (drv.error) { out.error = drv.error; return out; }
    var gpu = data.gpus.filter(function (g) { return g.name === sel.gpu.value; })[0];
    var kept = [];
    a.stacks.forEach(function (s0) {
      var s = JSON.parse(JSON.stringify(s0));
      s.unknown = s.unknown || [];
      s.notes = s.notes || [];
      if (drv.version && s.cuda) {
        var v = drv.verdict(s.cuda);
        if (v.unknown) { s.unknown.push(gap(s, "driver " + drv.version + ": " + v.unknown)); if (s.status !== "incompatible") s.status = "unknown"; }
        else if (!v.ok) { out.reasons.push(name(s) + ": not chosen: " + v.reason); out.dropped++; return; }
        if (v.note) s.notes.push("driver " + drv.version + ": " + v.note);
      }
      if (gpu) {
        var f = data.picks[data.fits[s.fit][gpu.cc]];
        s.gpu = f;
        if (!f.keep) { out.reasons.push(name(s) + ": not chosen: no kernels for " + gpu.name + " (compute capability " + gpu.cc + ")" + (f.detail ? ": " + f.detail : "")); out.dropped++; return; }
        if (f.gap) { s.unknown.push(gap(s, f.gap)); if (s.status !== "incompatible") s.status = "unknown"; }
      }
      kept.push(s);
    });
    kept.sort(better);
    if (kept.length === 0) {
      out.error = "no build of " + sel.fw.value + " " + sel.v.value + " fits this " + (gpu && drv.version ? "GPU and driver" : gpu ? "GPU" : "driver");
      return out;
    }
    var s = kept[0];
    out.stack = s;
    var r = ["chosen: " + name(s) + (s.default ? ", the build plain " + pm.channel + " installs" : "") + (kept.length > 1 ? ", ranked first of " + kept.length + " that fit" : "")];
    kept.slice(1).forEach(function (k) { r.push(name(k) + ": fits, ranked lower" + (k.status === "unknown" ? " (a fact is missing)" : "")); });
    s.unknown.forEach(function (u) { r.push("unknown: " + u); });
    s.notes.forEach(function (n) { r.push("note: " + n); });
    out.reasons = r.concat(out.reasons);
    // The pin file: pin refuses a stack it cannot vouch for; otherwise it
    // is the file Go rendered, its header naming this selection's command.
    if (s.status === "unknown") {
      out.pinError = "cudb pin refuses this stack (a fact it needs is missing: " + s.unknown.join("; ") + "); add --allow-unknown to write it anyway";
    } else if (s.pin_error) {
      out.pinError = s.pin_error;
    } else {
      out.pin = s.pin.replace(" --driver @DRIVER@", drv.version ? " --driver " + drv.raw : "")
        .replace(" --gpu @GPU@", gpu ? " --gpu " + gpu.arg : "");
      out.pinCommand = out.pin.split("\n")[0].replace(/^#\s*/, "");
    }
    return out;
  }

  function render() {
    var section = $("install-answer");
    if (!loaded[release()]) { load(); return; }
    refreshManagers();
    var o = answer(), s = o.stack, pm = manager(), gpu = sel.gpu.value, drv = sel.driver.value.trim();
    $("ans-request").textContent = o.request ? o.request + (gpu ? " --gpu '" + gpu + "'" : "") + (drv ? " --driver " + drv : "") : "";
    $("ans-status").textContent = o.error ? o.error : "status: " + s.status;
    $("ans-variant").textContent = s ? s.variant + (s.default ? " (default)" : "") : "";
    $("ans-cuda").textContent = s ? s.cuda || "none" : "";
    $("ans-cudnn").textContent = s ? s.cudnn || "not in the data" : "";
    $("ans-python").textContent = s ? s.python.min + " - " + s.python.max : "";
    $("ans-gpu").textContent = s ? (s.gpu ? s.gpu.support + (s.gpu.detail ? ": " + s.gpu.detail : "") : (s.ccs || []).join(" ")) : "";
    var floor = s && s.floor ? (radio("os") === "windows" ? s.floor.windows_min : s.floor.linux_min) : "";
    $("ans-floor").textContent = floor ? ">= " + floor : s && s.cuda ? "not in the data" : "";
    var command = s ? (pm.name === "uv" ? "uv sync    # in the folder where you saved the pyproject.toml below" : s.command) : "";
    $("ans-command").textContent = command;
    var ul = $("ans-reasons");
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    o.reasons.forEach(function (t) { var li = document.createElement("li"); li.textContent = t; ul.appendChild(li); });
    $("ans-pin-name").textContent = pinNames[o.format] || o.format;
    $("ans-pin-cmd").textContent = o.pinCommand ? o.pinCommand + " > " + (pinNames[o.format] || o.format) : "";
    $("ans-pin").textContent = o.pin || o.pinError || "";
    section.setAttribute("data-command", s ? s.command : "");
    section.setAttribute("data-variant", s ? s.variant : "");
    section.setAttribute("data-cuda", s ? s.cuda : "");
    section.setAttribute("data-cudnn", s ? s.cudnn : "");
    section.setAttribute("data-status", s ? s.status : "error");
    section.setAttribute("data-dropped", String(o.dropped));
    section.setAttribute("data-pin", o.pin ? "file" : o.pinError ? "refused" : "none");
    // The selection, as a link (keys in alphabetical order).
    var vals = { driver: drv, fw: sel.fw.value, gpu: gpu, os: radio("os"), pm: pm.name, v: sel.v.value };
    var q = Object.keys(vals).filter(function (k) { return vals[k]; })
      .map(function (k) { return k + "=" + encodeURIComponent(vals[k]).replace(/%20/g, "+"); }).join("&");
    section.setAttribute("data-query", q);
    section.removeAttribute("data-loading");
    if (history.replaceState) history.replaceState(null, "", location.pathname + "?" + q);
  }

  // load fetches the picked release's answers with a script tag (fetch is
  // refused on file://) and renders when they arrive.
  function load() {
    var rel = release(), section = $("install-answer");
    section.setAttribute("data-loading", "1");
    if (loading[rel]) return;
    loading[rel] = true;
    var s = document.createElement("script");
    s.src = "data/install/" + sel.fw.value + "-" + sel.v.value + ".js";
    s.onload = function () { loaded[rel] = true; render(); };
    s.onerror = function () {
      loading[rel] = false;
      $("ans-status").textContent = "could not load " + s.src;
      section.setAttribute("data-status", "error");
    };
    document.head.appendChild(s);
  }

  data.gpus.forEach(function (g) { option(sel.gpu, g.name, g.name + " (sm " + g.cc + ")"); });
  refreshOptions();
  // The URL preselects: ?fw=torch&v=2.1.0&os=linux&pm=pip&gpu=Tesla+T4&driver=525.60.13
  ["fw", "v", "gpu", "driver"].forEach(function (k) {
    var v = param(k);
    if (v !== null) { sel[k].value = v; refreshOptions(); }
  });
  if (param("os") !== null) setRadio("os", param("os"));
  if (param("pm") !== null) setRadio("pm", param("pm"));
  [sel.fw, sel.v, sel.gpu].forEach(function (el) {
    el.addEventListener("change", function () { refreshOptions(); render(); });
  });
  sel.driver.addEventListener("input", render);
  document.querySelectorAll("input[type=radio]").forEach(function (r) { r.addEventListener("change", render); });
  render();
  body.setAttribute("data-install-ready", "1");
})();
