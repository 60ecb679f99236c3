// Rating charts: a tooltip follows the point under the pointer; the legend's boxes show
// and hide series, and the chart is drawn again for the ones shown (the server scales
// the axes to them). A slot with data-src loads its chart (a server-rendered fragment)
// after the page (unless the page rendered it: data-rendered), when a series is shown or
// hidden, and again when live.js says the tournament moved on.
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
    var slot = figure.closest(".chart-slot[data-src]");
    figure.querySelectorAll(".legend input[data-series]").forEach(function (box) {
      box.addEventListener("change", function () {
        if (slot) { load(slot); return; }
        figure.querySelectorAll("g.series").forEach(function (g) {
          if (g.dataset.label === box.dataset.series) { g.style.display = box.checked ? "" : "none"; }
        });
      });
    });
  }

  var WIDEST = 720, NARROWEST = 300;

  function width(slot) {
    // the drawing's width: the slot's own, so a phone's text is not scaled down
    return Math.max(NARROWEST, Math.min(WIDEST, Math.round(slot.clientWidth || WIDEST)));
  }

  function source(slot) {
    // the slot's chart at its width, without the series its legend has unchecked
    var query = Array.prototype.map.call(slot.querySelectorAll(".legend input:not(:checked)"),
      function (box) { return "hidden=" + encodeURIComponent(box.dataset.series); });
    query.push("width=" + width(slot));
    var src = slot.dataset.src;
    return src + (src.indexOf("?") >= 0 ? "&" : "?") + query.join("&");
  }

  function load(slot, fresh) {
    // answers may come back out of order (boxes clicked quickly, a live reload): only the
    // newest request's chart is drawn, so the legend never goes back to an older state
    var request = Number(slot.dataset.requested || 0) + 1;
    slot.dataset.requested = String(request);
    function newest() { return Number(slot.dataset.requested) === request; }
    // fresh: past any copy the site keeps a moment (the final chart of a tournament)
    return fetch(source(slot), fresh ? { cache: "reload" } : undefined).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status); }
      return r.text();
    }).then(function (html) {
      if (!newest()) { return; }
      slot.innerHTML = html;  // the platform's own escaped fragment
      slot.querySelectorAll("figure.rating-chart").forEach(init);
      slot.dataset.loaded = String(Date.now());
    }).catch(function (error) {
      if (newest()) { slot.textContent = "The chart could not be loaded: " + error.message; }
    }).then(function () { slot.dataset.settled = String(Number(slot.dataset.settled || 0) + 1); });
  }

  document.querySelectorAll("figure.rating-chart").forEach(init);
  document.querySelectorAll(".chart-slot[data-src]").forEach(function (slot) {
    // a chart the page drew at full width is drawn again for a narrower slot
    if (!slot.hasAttribute("data-rendered") || width(slot) < WIDEST - 40) { load(slot); }
  });
  window.arenaCharts = {
    reload: function (fresh) {
      document.querySelectorAll(".chart-slot[data-src]").forEach(function (slot) { load(slot, fresh); });
    }
  };
})();
