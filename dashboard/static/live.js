// Live pages: while any tournament runs, refresh its counters every 2 seconds, and its
// leaderboard on its own page.
(function () {
  "use strict";
  var PERIOD_MS = 2000;

  // A round robin's progress is matches played of all, and those that failed; a ladder
  // never ends: matches played.
  // A ladder never ends by itself: once over, it was stopped (dashboard/pages.py: state).
  function stateText(t) { return t.plays_until_stopped && t.status === "done" ? "stopped" : t.status; }

  function progressText(t) {
    if (t.plays_until_stopped) return t.matches.done + " played";
    const failed = t.matches.failed ? " (" + t.matches.failed + " failed)" : "";
    return t.matches.done + " / " + t.matches.total + failed;
  }

  // the chart is the page's costliest part: reloaded at most this often while the
  // tournament runs, and once more when it ends
  var CHART_PERIOD_MS = 10000;
  var chartLoaded = Date.now();

  function refreshLeaderboard(table, over) {
    var name = table.dataset.leaderboard;
    // the rows as the page draws them (the same template), swapped in whole; once it
    // is over, the last look is fresh: past any copy the site keeps a moment
    var url = "/tournaments/" + encodeURIComponent(name) + "/leaderboard?ranks_from=" +
      encodeURIComponent(table.dataset.ranksFrom || "1");
    return fetch(url, over ? { cache: "reload" } : undefined)
      .then(function (r) {
        if (!r.ok) { throw new Error(url + ": " + r.status); }
        return r.text();
      })
      .then(function (rows) {
        table.querySelector("tbody").innerHTML = rows;
        table.dataset.updated = String(Date.now());
        if (window.arenaCharts && (over || Date.now() - chartLoaded >= CHART_PERIOD_MS)) {
          chartLoaded = Date.now();
          window.arenaCharts.reload(over);
        }
      });
  }

  function update() {
    fetch("/api/v1/tournaments").then(function (r) { return r.json(); }).then(function (list) {
      var running = false, boards = [];
      list.forEach(function (t) {
        document.querySelectorAll('[data-tournament="' + CSS.escape(t.name) + '"]').forEach(function (row) {
          var m = t.matches;
          row.querySelector(".status").textContent = stateText(t);
          row.querySelector(".progress").textContent = progressText(t);
          row.querySelector(".running").textContent = m.running;
          row.querySelector(".failed").textContent = m.failed;
        });
        document.querySelectorAll('table[data-leaderboard="' + CSS.escape(t.name) + '"]').forEach(function (table) {
          if (t.status === "running" || table.dataset.last !== String(t.matches.ended)) {
            table.dataset.last = String(t.matches.ended);
            boards.push(refreshLeaderboard(table, t.status !== "running"));
          }
        });
        if (t.status === "running") { running = true; }
      });
      return Promise.all(boards).then(function () { if (running) { setTimeout(update, PERIOD_MS); } });
    }).catch(function () { setTimeout(update, 5000); });
  }
  document.querySelectorAll("table[data-leaderboard]").forEach(function (table) {
    table.dataset.last = document.querySelector("#progress .progress").textContent.split(" / ")[0];
  });
  setTimeout(update, PERIOD_MS);
})();
