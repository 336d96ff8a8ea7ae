(function () {
  "use strict";
  var form = document.getElementById("filters");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#req-table tbody tr.req"));
  var shown = document.getElementById("shown");
  var boxes = Array.prototype.slice.call(form.querySelectorAll("input[name=status]"));
  // A requirement shows when one of its statuses is ticked: the page opens on the problems.
  function apply() {
    var ticked = {};
    boxes.forEach(function (box) { ticked[box.value] = box.checked; });
    var area = form.elements.area.value;
    var count = 0;
    rows.forEach(function (row) {
      var d = row.dataset;
      var visible = d.statuses.split(" ").some(function (s) { return ticked[s]; }) &&
        (area === "" || d.area === area);
      row.hidden = !visible;
      if (visible) { count++; }
    });
    shown.textContent = count + " of " + rows.length + " requirements shown";
  }
  function tickAll(checked) {
    boxes.forEach(function (box) { box.checked = checked(box.value); });
    apply();
  }
  var problems = {fail: true, error: true, stale: true, warn: true};
  // The evidence of passes and na checks is packed: gzip-compressed JSON in base64, decoded once,
  // the first time a row holding some is opened.
  var packed = null;
  function unpack() {
    if (packed) { return packed; }
    var el = document.getElementById("evidence-pack");
    if (!el || typeof DecompressionStream === "undefined") {
      packed = Promise.resolve(null);
      return packed;
    }
    var bin = atob(el.textContent.trim().replace(/-/g, "+").replace(/_/g, "/"));
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    packed = new Response(stream).json().catch(function () { return null; });
    return packed;
  }
  function fill(details) {
    var slots = details.querySelectorAll("div.packed[data-ev]");
    if (!slots.length) { return Promise.resolve(); }
    return unpack().then(function (lists) {
      Array.prototype.forEach.call(slots, function (slot) {
        var list = lists && lists[Number(slot.dataset.ev)];
        if (!list) { return; }
        var box = document.createElement("div");
        box.className = "evidence";
        list.forEach(function (e) {
          var ex = document.createElement("div");
          ex.className = "exchange " + e[1];
          var head = document.createElement("div");
          head.className = "head";
          head.textContent = e[0];
          var pre = document.createElement("pre");
          pre.textContent = e[2];
          ex.appendChild(head);
          ex.appendChild(pre);
          box.appendChild(ex);
        });
        slot.replaceWith(box);
      });
    });
  }
  rows.forEach(function (row) {
    var details = row.querySelector("details");
    details.addEventListener("toggle", function () {
      if (details.open) { fill(details); }
    });
  });
  // A link to a result (a cell) or a not-served line opens it, showing its row first if the
  // filters hid it.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    var row = target.closest("tr.req");
    var details = target.closest("details") || target.querySelector("details");
    if (row && row.hidden) { tickAll(function () { return true; }); }
    if (!details) { return; }
    details.open = true;
    fill(details).then(function () { target.scrollIntoView({block: "center"}); });
    target.scrollIntoView({block: "center"});
  }
  document.getElementById("only-problems").addEventListener("click", function () {
    tickAll(function (s) { return problems[s] === true; });
  });
  document.getElementById("show-all").addEventListener("click", function () {
    tickAll(function () { return true; });
  });
  form.addEventListener("change", apply);
  window.addEventListener("hashchange", reveal);
  form.hidden = false;
  apply();
  reveal();
})();
