(function () {
  "use strict";
  var form = document.getElementById("filters");
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.results tbody tr"));
  var shown = document.getElementById("shown");
  function selected(name) {
    return form.elements[name].value;
  }
  function apply() {
    var statuses = {};
    Array.prototype.forEach.call(form.querySelectorAll("input[name=status]"), function (box) {
      statuses[box.value] = box.checked;
    });
    var area = selected("area"), version = selected("version"), transport = selected("transport");
    var count = 0;
    rows.forEach(function (row) {
      var d = row.dataset;
      var visible = statuses[d.status] !== false &&
        (area === "" || d.area === area) &&
        (version === "" || d.version === version) &&
        (transport === "" || d.transport === transport);
      row.hidden = !visible;
      if (visible) { count++; }
    });
    shown.textContent = count + " of " + rows.length + " shown";
  }
  // A link to a row or a not-served line (a grid cell) opens its evidence, showing the row first
  // if the filters hid it.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) { return; }
    var details = target.querySelector("details");
    if (!details) { return; }
    if (target.hidden) {
      form.reset();
      apply();
    }
    details.open = true;
    target.scrollIntoView({block: "center"});
  }
  document.getElementById("only-problems").addEventListener("click", function () {
    Array.prototype.forEach.call(form.querySelectorAll("input[name=status]"), function (box) {
      box.checked = box.value !== "pass" && box.value !== "na";
    });
    apply();
  });
  document.getElementById("show-all").addEventListener("click", function () {
    form.reset();
    apply();
  });
  form.addEventListener("change", apply);
  window.addEventListener("hashchange", reveal);
  form.hidden = false;
  apply();
  reveal();
})();
