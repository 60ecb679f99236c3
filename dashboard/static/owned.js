// What a page shows its owner beside what it shows anyone. With the token of this tab
// (signed in on /owner), the page asks the API again as the owner:
// - a match page: the words of the owner's own bots' forfeits (an exception's text, a
//   traceback), which the page shows nobody else, added to their seats as text;
// - the match list of one of the owner's scrimmages (its matches are listed for nobody
//   else): its rows.
(function () {
  "use strict";
  var TOKEN_KEY = "arena-owner-token";
  var token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) { return; }
  var el = window.arenaDom.el;
  var asOwner = function (path) {
    return fetch("/api/v1" + path, { headers: { Authorization: "Bearer " + token } })
      .then(function (response) { return response.ok ? response.json() : null; });
  };

  var seats = document.getElementById("seats");
  if (seats && seats.dataset.match) {
    asOwner("/matches/" + seats.dataset.match).then(function (match) {
      if (!match) { return; }
      match.seats.forEach(function (seat) {
        var cell = seats.querySelector('td.forfeit[data-seat="' + seat.seat + '"]');
        if (cell && seat.reason) { cell.textContent = (seat.forfeit || "") + ": " + seat.reason; }
      });
    }).catch(function () { /* the public page stays */ });
  }

  var list = document.querySelector("table.matches[data-tournament]");
  if (list && list.dataset.tournament && list.querySelector("td[colspan]")) {
    asOwner("/matches?tournament=" + encodeURIComponent(list.dataset.tournament)).then(function (page) {
      if (!page || !page.items.length) { return; }
      var body = list.querySelector("tbody");
      body.textContent = "";
      page.items.forEach(function (m) {
        var row = el("tr");
        var link = el("a", null, String(m.id));
        link.href = "/matches/" + m.id;
        var first = el("td");
        first.appendChild(link);
        row.appendChild(first);
        row.appendChild(el("td", null, m.tournament));
        row.appendChild(el("td", null, m.status));
        row.appendChild(el("td", null, m.seats.map(function (s) {
          return s.bot + (s.place ? " (" + s.place + ")" : "") + (s.forfeit ? " forfeit" : "");
        }).join(", ")));
        row.appendChild(el("td", null, m.finished_at ? m.finished_at.slice(0, 16).replace("T", " ") + " UTC" : ""));
        body.appendChild(row);
      });
    }).catch(function () { /* the public page stays */ });
  }
}());
