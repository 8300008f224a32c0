// cudb install selector. Every judgement was made by cudb's Go code when
// the site was built: data/install.js holds the releases, the GPUs, each
// stack's kernel check per compute capability and CheckDriverOS's verdict
// for every range of drivers; data/install/<framework>-<version>.js holds
// one release's resolve answers and the pin file of every stack;
// data/install/pair/<A>-<x>+<B>-<y>.js holds merge's verdict on every
// combination of two releases' stacks (merged stack and pin file, or the
// conflict lines resolve prints). This script only looks judgements up
// and ranks them, and walks the combinations, the way resolve does.
(function () {
  "use strict";
  var body = document.body;
  var data = window.cudbInstall;
  var answers = {}, pairs = {}, loaded = {}, loading = {};
  var $ = function (id) { return document.getElementById(id); };
  var sel = { fw: $("sel-fw"), v: $("sel-v"), fw2: $("sel-fw2"), v2: $("sel-v2"), gpu: $("sel-gpu"), driver: $("sel-driver") };
  var pinNames = { requirements: "requirements.txt", uv: "pyproject.toml", conda: "environment.yml" };

  window.cudbInstallRelease = function (a) {
    Object.keys(a).forEach(function (k) { answers[k] = a[k]; });
  };
  window.cudbInstallPair = function (a) {
    Object.keys(a).forEach(function (k) { pairs[k] = a[k]; });
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
  function framework(name) {
    return data.frameworks.filter(function (f) { return f.name === name; })[0] || data.frameworks[0];
  }
  // picked is the selection's releases, in the order of data.frameworks
  // (the order the pair files and the page's cudb command use).
  function picked() {
    var p = [{ fw: sel.fw.value, v: sel.v.value }];
    if (sel.fw2.value) p.push({ fw: sel.fw2.value, v: sel.v2.value });
    var rank = function (r) { return data.frameworks.indexOf(framework(r.fw)); };
    return p.sort(function (a, b) { return rank(a) - rank(b); });
  }
  function manager() {
    return data.managers.filter(function (m) { return m.name === radio("pm"); })[0] || data.managers[0];
  }
  function key(r, pm) { return [r.fw, r.v, radio("os"), pm].join(" "); }
  function pairKey(p, pm) { return [p[0].fw, p[0].v, p[1].fw, p[1].v, radio("os"), pm].join(" "); }
  // files are the data files the selection needs.
  function files() {
    var p = picked(), f = p.map(function (r) { return "data/install/" + r.fw + "-" + r.v + ".js"; });
    if (p.length > 1) f.push("data/install/pair/" + p[0].fw + "-" + p[0].v + "+" + p[1].fw + "-" + p[1].v + ".js");
    return f;
  }
  function ready() { return files().every(function (f) { return loaded[f]; }); }

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
    var row = data.driver.verdicts[step.rows[i]], max = data.driver.verdict_max[step.rows[i]];
    return {
      raw: raw, version: t, verdict: function (cuda) {
        var p = row[cuda] === undefined ? { ok: false, reason: "no driver verdict for CUDA " + cuda } : data.driver.picks[row[cuda]];
        // site.FillDriverReason: the row's newest CUDA, then the driver typed.
        return { ok: p.ok, note: p.note || "", unknown: p.unknown || "", reason: (p.reason || "").split("{max}").join(max).replace("{driver}", t) };
      }
    };
  }

  function refreshOptions() {
    fill(sel.fw, data.frameworks.map(function (f) { return [f.name, f.label]; }));
    fill(sel.fw2, data.frameworks.filter(function (f) { return f.name !== sel.fw.value; })
      .map(function (f) { return [f.name, f.label]; }), true);
    // A pair offers each framework's newest releases, the ones paired.
    var versions = function (f) { return f.versions.slice(0, sel.fw2.value ? f.paired : f.versions.length).map(function (v) { return [v, v]; }); };
    fill(sel.v, versions(framework(sel.fw.value)));
    fill(sel.v2, sel.fw2.value ? versions(framework(sel.fw2.value)) : []);
    sel.v2.disabled = !sel.fw2.value;
  }
  function refreshManagers() {
    data.managers.forEach(function (m) {
      var r = $("pm-" + m.name);
      r.disabled = ready() && !picked().every(function (p) { return answers[key(p, m.name)]; });
      r.parentNode.title = r.disabled ? "no " + m.name + " builds of this selection in the data" : "";
    });
    if ($("pm-" + radio("pm")).disabled) setRadio("pm", "pip");
    var dl = $("driver-floors");
    while (dl.firstChild) dl.removeChild(dl.firstChild);
    (data.driver.os[radio("os")].breaks || []).slice().reverse().forEach(function (b) { option(dl, b, b); });
  }

  // judge keeps the stacks of one release that resolve keeps for the
  // driver and GPU (Go's verdicts, looked up), best first, each with its
  // index in the release's answer; it tells out why the others went.
  function judge(r, stacks, drv, gpu, out, prefix) {
    // gap words a missing fact as resolve does: "<framework> <version> <variant>: what".
    var gap = function (s, what) { return r.fw + " " + r.v + " " + s.variant + ": " + what; };
    var kept = [];
    stacks.forEach(function (s0, idx) {
      var s = JSON.parse(JSON.stringify(s0));
      s.idx = idx;
      s.unknown = s.unknown || [];
      s.notes = s.notes || [];
      if (drv.version && s.cuda) {
        var v = drv.verdict(s.cuda);
        if (v.unknown) { s.unknown.push(gap(s, "driver " + drv.version + ": " + v.unknown)); if (s.status !== "incompatible") s.status = "unknown"; }
        else if (!v.ok) { out.reasons.push(prefix + name(s) + ": not chosen: " + v.reason); out.dropped++; return; }
        if (v.note) s.notes.push("driver " + drv.version + ": " + v.note);
      }
      if (gpu) {
        var f = fillPick(data.picks[data.fits[s.fit][gpu.cc]], s.fit_args || {}, gpu.cc);
        s.gpu = f;
        if (!f.keep) { out.reasons.push(prefix + name(s) + ": not chosen: no kernels for " + gpu.name + " (compute capability " + gpu.cc + ")" + (f.detail ? ": " + f.detail : "")); out.dropped++; return; }
        if (f.gap) { s.unknown.push(gap(s, f.gap)); if (s.status !== "incompatible") s.status = "unknown"; }
      }
      kept.push(s);
    });
    kept.sort(better);
    if (kept.length === 0) out.error = "no build of " + r.fw + " " + r.v + " fits this " + (gpu && drv.version ? "GPU and driver" : gpu ? "GPU" : "driver");
    return kept;
  }

  // fillPick puts a stack's own words back into a shared GPU judgement
  // (site.FillPick in Go, the inverse of gen site's templatePick).
  function fillPick(p, args, cc) {
    var sub = [["{cc}", cc], ["{sm}", "sm_" + cc.replace(/\./g, "")], ["{missing}", args.missing || ""], ["{arch}", args.arch || ""]];
    function fill(t) {
      if (!t) return t;
      sub.forEach(function (r) { t = t.split(r[0]).join(r[1]); });
      return t;
    }
    return { support: p.support, keep: p.keep, detail: fill(p.detail), gap: fill(p.gap) };
  }

  // combine walks two releases' kept stacks as resolve's combine does
  // (first framework's best stack with each of the second's, and so on)
  // and takes merge's verdict on each pair from the pair file: merged
  // stacks, known-good first, or the conflicts of the first pair tried.
  function combine(p, a, b, out) {
    var joint = [], first = null;
    a.forEach(function (sa) {
      b.forEach(function (sb) {
        var c = p.combinations[sa.idx * p.width + sb.idx], label = sa.variant + "+" + sb.variant;
        if (!c.stack) {
          first = first || c.conflicts;
          out.reasons.push(label + ": not chosen: " + c.conflicts[0]);
          out.dropped++;
          return;
        }
        // The merged stack's gaps are its parts' (merge's Share lists
        // each side's), now with what the driver and GPU added.
        var s = JSON.parse(JSON.stringify(c.stack));
        s.unknown = sa.unknown.concat(sb.unknown).filter(function (u, i, all) { return all.indexOf(u) === i; });
        s.notes = sa.notes.concat(sb.notes);
        s.status = s.unknown.length ? "unknown" : "ok";
        s.parts = [sa, sb];
        s.default = sa.default || sb.default;
        joint.push(s);
      });
    });
    var ok = function (s) { return s.status === "ok"; };
    joint = joint.filter(ok).concat(joint.filter(function (s) { return !ok(s); }));
    if (joint.length === 0) out.conflicts = first || [];
    return joint;
  }

  function answer() {
    var pm = manager(), rels = picked();
    var out = { request: "", error: "", stack: null, reasons: [], conflicts: null, dropped: 0, format: pm.format };
    var as = rels.map(function (r) { return answers[key(r, pm.name)]; });
    var p = rels.length > 1 ? pairs[pairKey(rels, pm.name)] : as[0];
    if (!p || !as.every(Boolean)) { out.error = "no " + pm.name + " answer for this combination"; return out; }
    out.request = p.request;
    if (p.error) { out.error = p.error; return out; }
    var drv = driver();
    if (drv.error) { out.error = drv.error; return out; }
    var gpu = data.gpus.filter(function (g) { return g.name === sel.gpu.value; })[0];
    var kept = rels.map(function (r, i) { return judge(r, as[i].stacks, drv, gpu, out, rels.length > 1 ? r.fw + " " : ""); });
    if (out.error) return out;
    if (rels.length > 1) {
      p.width = as[1].stacks.length;
      kept = combine(p, kept[0], kept[1], out);
      if (out.conflicts) {
        out.pinError = "cudb pin refuses: these frameworks cannot share one environment (exit status 3, as cudb resolve)";
        out.reasons.unshift("cudb resolve (the command above) also names nearby releases that would agree");
        return out;
      }
    } else {
      kept = kept[0];
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

  function text(id, t) { $(id).textContent = t; }
  function list(id, items) {
    var ul = $(id);
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    items.forEach(function (t) { var li = document.createElement("li"); li.textContent = t; ul.appendChild(li); });
  }
  // gpuText is the kernel check of a stack (of each part of a merged one).
  function gpuText(s) {
    if (s.parts) return s.parts.map(function (p, i) { return picked()[i].fw + ": " + (gpuText(p) || "not in the data"); }).join("; ");
    return s.gpu ? s.gpu.support + (s.gpu.detail ? ": " + s.gpu.detail : "") : (s.ccs || []).join(" ");
  }

  function render() {
    var section = $("install-answer");
    if (!ready()) { load(); return; }
    refreshManagers();
    var o = answer(), s = o.stack, pm = manager(), gpu = sel.gpu.value, drv = sel.driver.value.trim();
    text("ans-request", o.request ? o.request + (gpu ? " --gpu '" + gpu + "'" : "") + (drv ? " --driver " + drv : "") : "");
    text("ans-status", o.error ? o.error : o.conflicts ? "status: incompatible (cudb resolve exits 3): these frameworks cannot share one environment" : "status: " + s.status);
    list("ans-conflicts", o.conflicts || []);
    $("ans-stack").hidden = $("ans-command").hidden = !s;
    text("ans-variant", s ? s.variant + (s.default ? " (default)" : "") : "");
    text("ans-cuda", s ? s.cuda || "none" : "");
    text("ans-cudnn", s ? s.cudnn || "not in the data" : "");
    text("ans-python", s ? s.python.min + " - " + s.python.max : "");
    text("ans-gpu", s ? gpuText(s) : "");
    var fl = s && (s.parts ? s.parts[0].floor || s.parts[1].floor : s.floor);
    fl = fl ? (radio("os") === "windows" ? fl.windows_min : fl.linux_min) : "";
    text("ans-floor", fl ? ">= " + fl : s && s.cuda ? "not in the data" : "");
    // uv installs from the pyproject.toml pin writes: where pin refuses,
    // there is no file to sync, and the page says why instead.
    var pinName = pinNames[o.format] || o.format;
    text("ans-command", s ? (pm.name !== "uv" ? s.command : o.pin ? "uv sync    # in the folder where you saved the pyproject.toml below" :
      "# no pyproject.toml to uv sync: " + (o.pinError || "cudb pin writes none for this selection")) : "");
    list("ans-reasons", o.reasons);
    text("ans-pin-name", pinName);
    // A refused pick shows the refusal and its reason, never an empty file.
    $("ans-pin-file").hidden = !o.pin;
    text("ans-pin-cmd", o.pinCommand ? o.pinCommand + " > " + pinName : "");
    text("ans-pin", o.pin || "");
    text("ans-pin-refused", o.pin ? "" : "no " + pinName + ": " + (o.pinError || (o.error ? o.error : "cudb pin writes none for this selection")));
    $("ans-pin-refused").hidden = !!o.pin;
    section.setAttribute("data-command", s ? s.command : "");
    section.setAttribute("data-variant", s ? s.variant : "");
    section.setAttribute("data-cuda", s ? s.cuda : "");
    section.setAttribute("data-cudnn", s ? s.cudnn : "");
    section.setAttribute("data-status", s ? s.status : o.conflicts ? "incompatible" : "error");
    section.setAttribute("data-dropped", String(o.dropped));
    section.setAttribute("data-pin", o.pin ? "file" : o.pinError ? "refused" : "none");
    // The selection, as a link (keys in alphabetical order).
    var vals = { driver: drv, fw: sel.fw.value, fw2: sel.fw2.value, gpu: gpu, os: radio("os"), pm: pm.name, v: sel.v.value, v2: sel.fw2.value ? sel.v2.value : "" };
    var q = Object.keys(vals).filter(function (k) { return vals[k]; })
      .map(function (k) { return k + "=" + encodeURIComponent(vals[k]).replace(/%20/g, "+"); }).join("&");
    section.setAttribute("data-query", q);
    section.removeAttribute("data-loading");
    if (history.replaceState) history.replaceState(null, "", location.pathname + "?" + q);
  }

  // load fetches the data files the selection needs with script tags
  // (fetch is refused on file://) and renders when they have arrived.
  function load() {
    var section = $("install-answer");
    section.setAttribute("data-loading", "1");
    files().forEach(function (f) {
      if (loading[f]) return;
      loading[f] = true;
      var s = document.createElement("script");
      s.src = f;
      s.onload = function () { loaded[f] = true; render(); };
      s.onerror = function () {
        loading[f] = false;
        $("ans-status").textContent = "could not load " + f;
        section.setAttribute("data-status", "error");
      };
      document.head.appendChild(s);
    });
  }

  data.gpus.forEach(function (g) { option(sel.gpu, g.name, g.name + " (sm " + g.cc + ")"); });
  sel.fw2.title = "pairs cover each framework's " + Math.max.apply(null, data.frameworks.map(function (f) { return f.paired; })) +
    " newest releases; cudb resolve answers any pair";
  refreshOptions();
  // The URL preselects: ?fw=torch&v=2.1.0&fw2=tensorflow&v2=2.14.0&os=linux&pm=pip&gpu=Tesla+T4&driver=525.60.13
  ["fw", "fw2", "v", "v2", "gpu", "driver"].forEach(function (k) {
    var v = param(k);
    if (v !== null) { sel[k].value = v; refreshOptions(); }
  });
  if (param("os") !== null) setRadio("os", param("os"));
  if (param("pm") !== null) setRadio("pm", param("pm"));
  [sel.fw, sel.v, sel.fw2, sel.v2, sel.gpu].forEach(function (el) {
    el.addEventListener("change", function () { refreshOptions(); render(); });
  });
  sel.driver.addEventListener("input", render);
  document.querySelectorAll("input[type=radio]").forEach(function (r) { r.addEventListener("change", render); });
  render();
  body.setAttribute("data-install-ready", "1");
})();
