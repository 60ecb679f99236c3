// Rating charts: a tooltip follows the point under the pointer; the legend's boxes
// show and hide series.
(function () {
  "use strict";
  document.querySelectorAll("figure.rating-chart").forEach(function (figure) {
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
  });
})();
