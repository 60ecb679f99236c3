// An owner's own page: sign in with the token (kept in this tab only), see the bots'
// versions, seats and output, submit a bot or a version, rotate or revoke the token.
// Everything goes through the API with the token as a Bearer header.
(function () {
  "use strict";
  var KEY = "arena-owner-token";
  var $ = function (id) { return document.getElementById(id); };
  var owner = null;

  function el(tag, content, cls) {
    var node = document.createElement(tag);
    if (content != null) { node.textContent = content; }
    if (cls) { node.className = cls; }
    return node;
  }

  function api(method, path, body) {
    var headers = { Authorization: "Bearer " + sessionStorage.getItem(KEY) };
    if (body !== undefined) { headers["Content-Type"] = "application/json"; }
    return fetch("/api/v1" + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (response) {
        if (response.status === 204) { return null; }
        return response.json().then(function (data) {
          if (!response.ok) { throw new Error(message(data, response.status)); }
          return data;
        });
      });
  }

  // The API's error, in one line.
  function message(data, status) {
    var detail = data && data.detail;
    if (Array.isArray(detail)) {
      return detail.map(function (d) { return d.loc.slice(1).join(".") + ": " + d.msg; }).join("; ");
    }
    return detail || ("HTTP " + status);
  }

  function signIn(token) {
    sessionStorage.setItem(KEY, token);
    return api("GET", "/owners/me").then(function (me) {
      owner = me;
      $("sign-in").hidden = true;
      $("sign-in-error").hidden = true;
      $("account").hidden = false;
      $("owner-name").textContent = me.name;
      $("token-state").textContent = me.token;
      var names = $("my-bot-names");
      names.replaceChildren.apply(names, me.bots.map(function (b) { var o = el("option"); o.value = b; return o; }));
      return Promise.all([showBots(me.bots), showSeats()]);
    }).catch(function (error) {
      sessionStorage.removeItem(KEY);
      $("sign-in").hidden = false;
      $("account").hidden = true;
      $("sign-in-error").textContent = "Cannot sign in: " + error.message;
      $("sign-in-error").hidden = false;
    });
  }

  // Every competition's standings, to say where each bot stands.
  function standings() {
    return api("GET", "/competitions").then(function (list) {
      return Promise.all(list.map(function (c) { return api("GET", "/competitions/" + encodeURIComponent(c.name)); }));
    });
  }

  // Where a bot stands, or what to do: one line per competition it plays in.
  function standingOf(bot, competitions) {
    var lines = [];
    competitions.forEach(function (c) {
      var row = c.leaderboard.filter(function (r) { return r.bot === bot.name; })[0];
      if (row) {
        lines.push(c.name + (c.status === "open" ? "" : " (" + c.status + ")") + ": " +
          (row.games ? "rank " + row.rank + " of " + c.leaderboard.length + ", " + row.games + " games, mu − 3σ " + row.score.toFixed(2)
                     : "entered, waiting for its first table"));
      }
    });
    var last = bot.versions[bot.versions.length - 1];
    if (last && last.status === "rejected") {
      lines.push("v" + last.number + " was rejected (its reason is below): fix it and submit a new version.");
    } else if (last && last.status === "pending") {
      lines.push("v" + last.number + " is waiting for its qualification match.");
    } else if (!lines.length) {
      lines.push("not in any competition yet: the operator opens one (arena competition create NAME --default).");
    }
    return lines;
  }

  function showBots(names) {
    return Promise.all([
      Promise.all(names.map(function (name) { return api("GET", "/bots/" + encodeURIComponent(name)); })),
      standings(),
    ]).then(function (found) {
        var bots = found[0], competitions = found[1];
        var box = $("my-bots");
        if (!bots.length) { box.replaceChildren(el("p", "No bots yet: submit one above.")); return; }
        box.replaceChildren.apply(box, bots.map(function (bot) {
          var section = el("section", null, "own-bot");
          section.dataset.bot = bot.name;
          var title = el("h3");
          var link = el("a", bot.name);
          link.href = "/bots/" + encodeURIComponent(bot.name);
          title.appendChild(link);
          section.appendChild(title);
          standingOf(bot, competitions).forEach(function (line) { section.appendChild(el("p", line, "standing")); });
          var table = el("table");
          table.appendChild(row("th", ["version", "status", "kind", "active", "reason", "qualification", "created"]));
          bot.versions.forEach(function (v) {
            var tr = row("td", ["v" + v.number, v.status, v.kind, v.active ? "yes" : "no", v.reason || "", qualification(v), v.created_at.slice(0, 16).replace("T", " ") + " UTC"]);
            tr.className = "status-" + v.status;
            tr.children[4].className = "reason";  // a traceback keeps its line breaks
            table.appendChild(tr);
          });
          section.appendChild(table);
          return section;
        }));
      });
  }

  // The link to the match that qualified or rejected a version (its replay, its output
  // among the seats below).
  function qualification(version) {
    if (version.qualification_match == null) { return "-"; }
    var link = el("a", "match " + version.qualification_match, "qualification");
    link.href = "/matches/" + version.qualification_match;
    return link;
  }

  function row(tag, cells) {
    var tr = el("tr");
    cells.forEach(function (c) { tr.appendChild(c instanceof Node ? wrap(tag, c) : el(tag, c)); });
    return tr;
  }
  function wrap(tag, child) { var cell = el(tag); cell.appendChild(child); return cell; }

  function showSeats() {
    return api("GET", "/owners/me/seats?limit=50").then(function (seats) {
      var body = $("my-seats").querySelector("tbody");
      if (!seats.length) { body.replaceChildren(row("td", ["No recorded matches yet.", "", "", "", "", "", "", ""])); return; }
      body.replaceChildren.apply(body, seats.map(function (s) {
        var link = el("a", String(s.match));
        link.href = "/matches/" + s.match;
        var output;
        if (s.output) {
          output = el("details");
          output.appendChild(el("summary", s.output.split("\n").length + " lines"));
          output.appendChild(el("pre", s.output, "output"));
        } else {
          output = el("span", "-", "hint");
        }
        return row("td", [link, s.tournament, s.bot + " v" + s.version, s.place == null ? "-" : String(s.place),
          s.forfeit ? s.forfeit + (s.reason ? ": " + s.reason : "") : "", String(s.strikes), String(s.illegal), output]);
      }));
    });
  }

  function readSource() {
    var file = $("bot-file").files[0];
    if (file) { return file.text(); }
    return Promise.resolve($("bot-source").value);
  }

  function submit(event) {
    event.preventDefault();
    var name = $("bot-name").value.trim();
    var kind = $("bot-kind").value;
    var status = $("submission");
    status.className = "";
    status.textContent = "Submitting…";
    readSource().then(function (source) {
      var body = kind === "python" ? { kind: kind, source: source } : { kind: kind, target: $("bot-target").value.trim() };
      var mine = owner.bots.indexOf(name) >= 0;
      if (!mine) { body.name = name; }
      return api("POST", mine ? "/bots/" + encodeURIComponent(name) + "/versions" : "/bots", body);
    }).then(function (submitted) {
      status.textContent = name + " v" + submitted.version + ": " + submitted.status + " (its qualification match is queued)…";
      return waitQualified(name, submitted.version);
    }).catch(function (error) {
      status.className = "error";
      status.textContent = "Not submitted: " + error.message;
    });
  }

  // Poll the bot until the version is qualified or rejected (up to two minutes).
  function waitQualified(name, number) {
    var status = $("submission"), deadline = Date.now() + 120000;
    return new Promise(function (resolve) {
      (function poll() {
        api("GET", "/bots/" + encodeURIComponent(name)).then(function (bot) {
          var version = bot.versions.filter(function (v) { return v.number === number; })[0];
          if (version && version.status !== "pending") {
            status.className = version.status === "ready" ? "ok" : "error";
            status.textContent = name + " v" + number + ": " + version.status + (version.reason ? ": " + version.reason : "");
            resolve(signIn(sessionStorage.getItem(KEY)));
          } else if (Date.now() > deadline) {
            status.textContent = name + " v" + number + " is still waiting for a worker to play its qualification match; this page shows it once it has.";
            resolve();
          } else {
            setTimeout(poll, 1000);
          }
        });
      })();
    });
  }

  $("sign-in").addEventListener("submit", function (event) { event.preventDefault(); signIn($("token").value.trim()); });
  $("submit-form").addEventListener("submit", submit);
  $("bot-kind").addEventListener("change", function () {
    var python = $("bot-kind").value === "python";
    document.querySelector(".kind-python").hidden = !python;
    document.querySelector(".kind-endpoint").hidden = python;
  });
  $("rotate").addEventListener("click", function () {
    api("POST", "/owners/me/token").then(function (fresh) {
      sessionStorage.setItem(KEY, fresh.token);
      $("new-token").textContent = "Your new token (shown once; the old one no longer works): " + fresh.token;
      $("new-token").hidden = false;
    });
  });
  $("revoke").addEventListener("click", function () {
    if (!window.confirm("Revoke your token? No token will work until the operator gives you a new one.")) { return; }
    api("DELETE", "/owners/me/token").then(function () { signOut(); $("sign-in-error").textContent = "Token revoked."; $("sign-in-error").hidden = false; });
  });
  function signOut() {
    sessionStorage.removeItem(KEY);
    owner = null;
    $("account").hidden = true;
    $("sign-in").hidden = false;
  }
  $("sign-out").addEventListener("click", signOut);
  if (sessionStorage.getItem(KEY)) { signIn(sessionStorage.getItem(KEY)); }
})();
