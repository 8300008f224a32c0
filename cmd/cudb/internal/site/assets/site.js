// cudb static site: row filtering. The filter text lives in the URL
// (#filter=T4 or ?filter=T4) so a filtered view can be linked and tested.
(function () {
  "use strict";
  var body = document.body;
  var errors = 0;
  window.addEventListener("error", function () {
    errors++;
    body.setAttribute("data-errors", String(errors));
  });
  body.setAttribute("data-errors", "0");

  function fromURL() {
    var m = /(?:^|[#&?])filter=([^&]*)/.exec(location.hash) || /(?:^|[?&])filter=([^&]*)/.exec(location.search);
    if (!m) return "";
    try {
      return decodeURIComponent(m[1].replace(/\+/g, " "));
    } catch (e) {
      return m[1];
    }
  }

  function apply(text) {
    var terms = text.toLowerCase().split(/\s+/).filter(function (t) { return t !== ""; });
    var rows = document.querySelectorAll("table.filterable tbody tr");
    var visible = 0;
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i];
      var hay = (row.getAttribute("data-filter") || row.textContent).toLowerCase();
      var keep = terms.every(function (t) { return hay.indexOf(t) !== -1; });
      row.hidden = !keep;
      if (keep) visible++;
    }
    body.setAttribute("data-visible", String(visible));
    var count = document.getElementById("filter-count");
    if (count) count.textContent = visible + " of " + rows.length + " rows";
  }

  var input = document.getElementById("filter");
  var initial = fromURL();
  if (input) {
    input.value = initial;
    input.addEventListener("input", function () {
      apply(input.value);
      var hash = input.value ? "#filter=" + encodeURIComponent(input.value) : " ";
      if (history.replaceState) history.replaceState(null, "", hash === " " ? location.pathname + location.search : hash);
    });
  }
  window.addEventListener("hashchange", function () {
    var v = fromURL();
    if (input) input.value = v;
    apply(v);
  });
  apply(initial);
  body.setAttribute("data-ready", "1");
})();
