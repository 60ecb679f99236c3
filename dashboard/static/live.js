// Live pages: while any tournament runs, refresh its counters every 2 seconds, and its
// leaderboard on its own page.
(function () {
  "use strict";
  var PERIOD_MS = 2000;

  function percent(v) { return v == null ? "-" : Math.round(v * 100) + "%"; }
  function fixed(v) { return v == null ? "-" : v.toFixed(2); }

  function cell(content, cls) {
    var td = document.createElement("td");
    if (cls) { td.className = cls; }
    if (content instanceof Node) { td.appendChild(content); } else { td.textContent = content; }
    return td;
  }

  // A round robin's progress is matches played of all, and those that failed; a ladder
  // never ends: matches played.
  function progressText(t) {
    if (t.format === "ladder") return t.matches.done + " played";
    const failed = t.matches.failed ? " (" + t.matches.failed + " failed)" : "";
    return t.matches.done + " / " + t.matches.total + failed;
  }

  function leaderboardRow(r) {
    var tr = document.createElement("tr");
    var link = document.createElement("a");
    link.href = "/bots/" + encodeURIComponent(r.bot);
    link.textContent = r.bot;
    var who = document.createDocumentFragment();
    who.appendChild(link);
    who.appendChild(document.createTextNode(" v" + r.version));
    [cell(String(r.rank)), cell(who, "bot"), cell(fixed(r.mu)), cell(fixed(r.sigma)), cell(fixed(r.score), "score"),
      cell(String(r.games)), cell(fixed(r.mean_place)), cell(percent(r.win_share)), cell(String(r.forfeits)),
      cell(String(r.strikes)), cell(String(r.illegal)), cell(percent(r.bluff_rate)), cell(percent(r.challenge_rate)),
      cell(percent(r.challenge_accuracy)), cell(percent(r.believe_rate)), cell(percent(r.believe_accuracy))
    ].forEach(function (td) { tr.appendChild(td); });
    return tr;
  }

  // the chart is the page's costliest part: reloaded at most this often while the
  // tournament runs, and once more when it ends
  var CHART_PERIOD_MS = 10000;
  var chartLoaded = Date.now();

  function refreshLeaderboard(table, over) {
    var name = table.dataset.leaderboard;
    // once it is over, the last look is fresh: past any copy the site keeps a moment
    var url = "/api/v1/tournaments/" + encodeURIComponent(name) + "/leaderboard";
    return fetch(url, over ? { cache: "reload" } : undefined)
      .then(function (r) { return r.json(); })
      .then(function (rows) {
        var body = table.querySelector("tbody");
        body.replaceChildren.apply(body, rows.map(leaderboardRow));
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
          row.querySelector(".status").textContent = t.status;
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
