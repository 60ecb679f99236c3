// Live progress: refresh the tournaments' counters every 2 seconds while any is running.
(function () {
  "use strict";
  function update() {
    fetch("/api/v1/tournaments").then(function (r) { return r.json(); }).then(function (list) {
      var running = false;
      list.forEach(function (t) {
        document.querySelectorAll('[data-tournament="' + CSS.escape(t.name) + '"]').forEach(function (row) {
          var m = t.matches;
          row.querySelector(".status").textContent = t.status;
          row.querySelector(".progress").textContent = m.finished + " / " + m.total;
          row.querySelector(".running").textContent = m.running;
          row.querySelector(".failed").textContent = m.failed;
        });
        if (t.status === "running") { running = true; }
      });
      if (running) { setTimeout(update, 2000); }
    }).catch(function () { setTimeout(update, 5000); });
  }
  setTimeout(update, 2000);
})();
