// Rating charts: a tooltip follows the point under the pointer; the legend's boxes show
// and hide series. A slot with data-src loads its chart (a server-rendered fragment)
// after the page, and again when live.js says the tournament moved on.
(function () {
  "use strict";

  function init(figure) {
    var tip = figure.querySelector(".chart-tip");
    figure.querySelectorAll("circle.mark").forEach(function (mark) {
      mark.addEventListener("mouseenter", function () {
        tip.textContent = mark.dataset.tip;
        tip.hidden = false;
        var box = figure.getBoundingClientRect(), at = mark.getBoundingClientRect();
        tip.style.left = (at.left - box.left + 10) + "px";
        tip.style.top = (at.top - box.top - 30) + "px";
        mark.classList.add("hovered");
      });
      mark.addEventListener("mouseleave", function () { tip.hidden = true; mark.classList.remove("hovered"); });
    });
    figure.querySelectorAll(".legend input[data-series]").forEach(function (box) {
      box.addEventListener("change", function () {
        figure.querySelectorAll("g.series").forEach(function (g) {
          if (g.dataset.label === box.dataset.series) { g.style.display = box.checked ? "" : "none"; }
        });
      });
    });
  }

  function load(slot) {
    return fetch(slot.dataset.src).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.text();
    }).then(function (html) {
      var hidden = Array.prototype.map.call(slot.querySelectorAll(".legend input:not(:checked)"),
        function (box) { return box.dataset.series; });
      slot.innerHTML = html;  // the platform's own escaped fragment
      slot.querySelectorAll(".legend input[data-series]").forEach(function (box) {
        if (hidden.indexOf(box.dataset.series) >= 0) { box.checked = false; box.dispatchEvent(new Event("change")); }
      });
      slot.querySelectorAll("figure.rating-chart").forEach(init);
      slot.dataset.loaded = String(Date.now());
    }).catch(function (error) { slot.textContent = "The chart could not be loaded: " + error.message; });
  }

  document.querySelectorAll("figure.rating-chart").forEach(init);
  document.querySelectorAll(".chart-slot[data-src]").forEach(load);
  window.arenaCharts = { reload: function () { document.querySelectorAll(".chart-slot[data-src]").forEach(load); } };
})();
