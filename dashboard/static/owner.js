// An owner's own page: signed in by the browser's session (/signin, /signup) or with the
// token (kept in this tab only), see the bots' versions and choose which one plays (make
// live, roll back), submit a bot or a version (live at once, staged, or gated by an A/B
// test), read the matches a page at a time, filtered, with what each uploaded bot
// printed; rotate or revoke the token. Everything goes through the API: with the token
// as a Bearer header, or with the session's cookie and its CSRF token on every write.
(function () {
  "use strict";
  var KEY = "arena-owner-token";
  var PER_PAGE = 25;
  var $ = function (id) { return document.getElementById(id); };
  var owner = null;
  var matchPage = 1;
  var matchRequest = 0; // only the latest listing is shown, whatever order answers arrive in
  var csrf = null; // signed in by a session: the token its writes carry

  var el = window.arenaDom.el;

  // The owner's token as a Bearer header, or the session's CSRF token on a write.
  function api(method, path, body) {
    var headers = {};
    var token = sessionStorage.getItem(KEY);
    if (token) { headers.Authorization = "Bearer " + token; }
    else if (csrf && method !== "GET") { headers["X-CSRF-Token"] = csrf; }
    return window.arenaDom.api(method, path, body, headers);
  }

  function signIn(token) {
    sessionStorage.setItem(KEY, token);
    return enter();
  }

  // The session this browser signed in with (/signin), if any: its CSRF token.
  function resume() {
    return fetch("/api/v1/sessions/current").then(function (response) {
      if (!response.ok) { return; }
      return response.json().then(function (signed) { csrf = signed.csrf; return enter(); });
    });
  }

  function enter() {
    return api("GET", "/owners/me").then(function (me) {
      owner = me;
      $("sign-in").hidden = true;
      $("sign-in-error").hidden = true;
      $("account").hidden = false;
      $("owner-name").textContent = me.name;
      $("token-state").textContent = me.token;
      var names = $("my-bot-names");
      names.replaceChildren.apply(names, me.bots.map(function (b) { var o = el("option"); o.value = b; return o; }));
      fillFilters(me.bots);
      document.dispatchEvent(new CustomEvent("arena-owner", { detail: me }));
      $("account-error").hidden = true;
      // signed in: a list that does not load says so, and signs nobody out
      return Promise.all([showBots(me.bots), showMatches(), showScrimmages()]).catch(function (error) {
        $("account-error").textContent = "Part of this page did not load (" + error.message + "): reload it to try again.";
        $("account-error").hidden = false;
      });
    }, function (error) {
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

  function when(moment) { return moment ? moment.slice(0, 16).replace("T", " ") + " UTC" : ""; }

  // Which version plays, and since when.
  function liveLine(bot) {
    var live = bot.versions.filter(function (v) { return v.state === "live"; })[0];
    if (!live) { return el("p", "live", "No version plays."); }
    return el("p", "live", "v" + live.number + " plays" + (live.live_since ? " since " + when(live.live_since) : "") + ".");
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
    } else if (last && last.state === "staged") {
      lines.push("v" + last.number + " is staged: " + gateLine(last));
    } else if (!lines.length) {
      lines.push("not in any competition yet: the operator opens one (arena competition create NAME --default).");
    }
    return lines;
  }

  function stateText(v) {
    if (v.state === "live") { return "live" + (v.live_since ? " since " + when(v.live_since) : ""); }
    return v.state;
  }

  function showBots(names) {
    return Promise.all([
      Promise.all(names.map(function (name) { return api("GET", "/bots/" + encodeURIComponent(name)); })),
      standings(),
    ]).then(function (found) {
      var bots = found[0], competitions = found[1];
      var box = $("my-bots");
      if (!bots.length) { box.replaceChildren(el("p", null, "No bots yet: submit one above.")); return; }
      box.replaceChildren.apply(box, bots.map(function (bot) { return botSection(bot, competitions); }));
    });
  }

  function botSection(bot, competitions) {
    var section = el("section", "own-bot");
    section.dataset.bot = bot.name;
    var title = el("h3");
    var link = el("a", null, bot.name);
    link.href = "/bots/" + encodeURIComponent(bot.name);
    title.appendChild(link);
    section.appendChild(title);
    if (bot.team) { section.appendChild(el("p", "hint", "Team " + bot.team)); }
    if (bot.disqualified) {
      section.appendChild(el("p", "error disqualified", "Disqualified by the operator: " + (bot.disqualified_reason || "")));
    }
    section.appendChild(liveLine(bot));
    standingOf(bot, competitions).forEach(function (line) { section.appendChild(el("p", "standing", line)); });
    var table = el("table");
    table.appendChild(row("th", ["version", "state", "kind", "reason", "qualification", "A/B gate", "created", ""]));
    bot.versions.forEach(function (v) {
      var kind = v.language ? v.kind + " · " + v.language : v.kind;
      var tr = row("td", ["v" + v.number, stateText(v), kind, reasonOf(v), qualification(v), gate(v), when(v.created_at), release(bot, v)]);
      tr.className = "status-" + v.status + " state-" + v.state;
      tr.children[3].className = "reason";  // a traceback keeps its line breaks
      table.appendChild(tr);
    });
    section.appendChild(table);
    var earlier = bot.versions.some(function (v) { return v.state === "earlier"; });
    if (earlier) {
      var back = el("button", "rollback", "Roll back to the version live before");
      back.type = "button";
      back.onclick = function () { change(bot.name, "/bots/" + encodeURIComponent(bot.name) + "/rollback", undefined); };
      section.appendChild(back);
    }
    section.appendChild(consent(bot));
    return section;
  }

  // Why a version is where it is, and what its build printed (its owner's alone).
  function reasonOf(v) {
    var text = v.detail || v.reason || "";
    if (!v.build_log) { return text; }
    var box = el("div", null, text), log = el("details", "build-log");
    log.appendChild(el("summary", null, "build log"));
    log.appendChild(el("pre", "output", v.build_log));
    box.appendChild(log);
    return box;
  }

  // What the owner allows of the bot: people's tables, other owners' scrimmages.
  function consent(bot) {
    var box = el("p", "consent");
    [["people", "people_may_play", "people may play it at tables"],
      ["scrimmages", "scrimmage_rival", "other owners may choose it as a scrimmage rival"]].forEach(function (item) {
      var label = el("label", null, " " + item[2] + " ");
      var tick = el("input");
      tick.type = "checkbox";
      tick.checked = bot[item[1]];
      tick.dataset.consent = item[0];
      tick.onchange = function () {
        var body = {};
        body[item[0]] = tick.checked;
        api("PATCH", "/bots/" + encodeURIComponent(bot.name) + "/consent", body)
          .catch(function (error) { tick.checked = !tick.checked; $("release").textContent = error.message; });
      };
      label.prepend(tick);
      box.appendChild(label);
    });
    return box;
  }

  // "Make live" for a qualified version that does not play now.
  function release(bot, version) {
    if (version.state !== "staged" && version.state !== "earlier") { return ""; }
    var button = el("button", "promote", "Make v" + version.number + " live");
    button.type = "button";
    button.onclick = function () {
      change(bot.name, "/bots/" + encodeURIComponent(bot.name) + "/promote", { version: version.number });
    };
    return button;
  }

  function change(name, path, body) {
    var status = $("release");
    status.className = "";
    status.textContent = "…";
    return api("POST", path, body).then(function (live) {
      status.className = "ok";
      status.textContent = live.bot + " v" + live.version + " is live" +
        (live.competitions.length ? ": now playing in " + live.competitions.join(", ") : "") + ".";
      return showBots(owner.bots);
    }).catch(function (error) {
      status.className = "error";
      status.textContent = "Not changed: " + error.message;
    });
  }

  // The link to the match that qualified or rejected a version (its replay, its output
  // among the matches below).
  function qualification(version) {
    if (version.qualification_match == null) { return "-"; }
    var link = el("a", "qualification", "match " + version.qualification_match);
    link.href = "/matches/" + version.qualification_match;
    return link;
  }

  function deciding(version) { return version.gate_status === "created" || version.gate_status === "running"; }

  // What a staged version waits for: its A/B test deciding, the test's verdict, or its owner.
  function gateLine(version) {
    if (!version.gate) { return "make it live below when you choose."; }
    if (deciding(version)) { return "its A/B test " + version.gate + " makes it live if it is better."; }
    return "its A/B test " + version.gate + " ended " + version.gate_status + ": make it live below if you still choose to.";
  }

  function gate(version) {
    if (!version.gate) { return "-"; }
    var cell = el("span");
    var link = el("a", "gate", version.gate);
    link.href = "/abtests/" + encodeURIComponent(version.gate);
    cell.appendChild(link);
    cell.appendChild(document.createTextNode(" (" + (deciding(version) ? "deciding" : version.gate_status) + ")"));
    return cell;
  }

  function row(tag, cells) {
    var tr = el("tr");
    cells.forEach(function (c) { tr.appendChild(c instanceof Node ? wrap(tag, c) : el(tag, null, c)); });
    return tr;
  }
  function wrap(tag, child) { var cell = el(tag); cell.appendChild(child); return cell; }

  // The filters: the owner's bots, and the competitions.
  function fillFilters(bots) {
    var select = $("filter-bot");
    var chosen = select.value;
    select.replaceChildren.apply(select, [""].concat(bots).map(function (b) {
      var o = el("option", null, b || "every bot");
      o.value = b;
      return o;
    }));
    select.value = chosen;
    api("GET", "/competitions").then(function (list) {
      var where = $("filter-competition");
      var picked = where.value;
      where.replaceChildren.apply(where, [""].concat(list.map(function (c) { return c.name; })).map(function (c) {
        var o = el("option", null, c || "anywhere");
        o.value = c;
        return o;
      }));
      where.value = picked;
    });
  }

  function query() {
    var params = new URLSearchParams({ page: String(matchPage), per_page: String(PER_PAGE) });
    var bot = $("filter-bot").value, version = $("filter-version").value.trim();
    if (bot) { params.set("bot", bot); }
    if (bot && version) { params.set("version", version); }
    if ($("filter-result").value) { params.set("result", $("filter-result").value); }
    if ($("filter-forfeit").checked) { params.set("forfeit", "true"); }
    if ($("filter-competition").value) { params.set("competition", $("filter-competition").value); }
    return params.toString();
  }

  function showMatches() {
    var body = $("my-seats").querySelector("tbody");
    var asked = ++matchRequest;
    var table = $("my-seats");
    function answered() { table.dataset.answers = String(Number(table.dataset.answers || 0) + 1); }
    return api("GET", "/owners/me/matches?" + query()).then(function (found) {
      answered();
      if (asked !== matchRequest) { return; }
      const pages = Math.max(1, Math.ceil(found.total / found.per_page));
      $("matches-count").textContent = found.total_exact
        ? found.total + (found.total === 1 ? " seat" : " seats") +
          (found.total ? " · page " + found.page + " of " + pages : "")
        : "more than " + found.total.toLocaleString("en") + " seats · page " + found.page;
      $("previous-page").disabled = found.page <= 1;
      $("next-page").disabled = !found.has_next;
      if (!found.items.length) { body.replaceChildren(row("td", ["No recorded matches here.", "", "", "", "", "", "", "", ""])); return; }
      body.replaceChildren.apply(body, found.items.map(seatRow));
    }).catch(function (error) {
      answered();
      if (asked !== matchRequest) { return; }
      body.replaceChildren(row("td", ["Cannot list them: " + error.message, "", "", "", "", "", "", "", ""]));
    });
  }

  function seatRow(s) {
    var link = el("a", "match", String(s.match));
    link.href = "/matches/" + s.match;
    var study = el("a", "study", "your decisions");
    study.href = "/matches/" + s.match + "#mine";
    var output;
    if (s.output) {
      output = el("details");
      output.appendChild(el("summary", null, s.output.split("\n").length + " lines"));
      output.appendChild(el("pre", "output", s.output));
    } else {
      output = el("span", "hint", "-");
    }
    var tr = row("td", [link, s.tournament, s.bot + " v" + s.version, s.place == null ? "-" : String(s.place),
      s.forfeit ? s.forfeit + (s.reason ? ": " + s.reason : "") : "", String(s.strikes), String(s.illegal), study, output]);
    if (s.place != null && s.place > 1) { tr.className = "lost"; }
    return tr;
  }

  function readSource() {
    var file = $("bot-file").files[0];
    if (file) { return file.text(); }
    return Promise.resolve($("bot-source").value);
  }

  // The chosen archive as base64 (the API's "archive" kind).
  function readArchive() {
    var file = $("bot-archive").files[0];
    if (!file) { return Promise.reject(new Error("choose a .zip or .tar.gz of the bot's folder")); }
    return file.arrayBuffer().then(function (buffer) {
      var bytes = new Uint8Array(buffer), text = "";
      for (var i = 0; i < bytes.length; i += 0x8000) {
        text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      }
      return btoa(text);
    });
  }

  function versionBody(kind) {
    if (kind === "python") { return readSource().then(function (source) { return { kind: kind, source: source }; }); }
    if (kind === "archive") { return readArchive().then(function (archive) { return { kind: kind, archive: archive }; }); }
    return Promise.resolve({ kind: kind, target: $("bot-target").value.trim() });
  }

  function submit(event) {
    event.preventDefault();
    var name = $("bot-name").value.trim();
    var kind = $("bot-kind").value;
    var status = $("submission");
    status.className = "";
    status.textContent = "Submitting…";
    versionBody(kind).then(function (body) {
      body.after = $("bot-after").value;
      var mine = owner.bots.indexOf(name) >= 0;
      if (!mine) { body.name = name; body.team = $("bot-team").value || null; }
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
            status.textContent = name + " v" + number + ": " + version.status + (version.detail || version.reason ? ": " + (version.detail || version.reason) : "") +
              (version.status === "ready" ? " (" + stateText(version) + ")" : "");
            resolve(enter());
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

  // The owner's scrimmages and each bot's results; each one's matches (and replays) are
  // on the matches page of its tournament.
  function showScrimmages() {
    return api("GET", "/owners/me/scrimmages").then(function (found) {
      var body = document.querySelector("#my-scrimmages tbody");
      body.replaceChildren.apply(body, found.map(function (s) {
        var results = s.results.map(function (line) {
          var place = line.mean_place == null ? "-" : line.mean_place.toFixed(2);
          return line.bot + " v" + line.version + ": " + place + ", " + line.wins + " wins";
        }).join(" \u00b7 ");
        var replays = el("a", null, "matches");
        replays.href = "/matches?tournament=" + encodeURIComponent(s.name);
        var cell = el("span");
        cell.appendChild(replays);
        if (s.status !== "done") {
          var stop = el("button", "stop-scrimmage", "Stop");
          stop.type = "button";
          stop.onclick = function () {
            api("POST", "/tournaments/" + encodeURIComponent(s.name) + "/stop")
              .then(showScrimmages)
              .catch(function (error) { $("scrimmage-status").textContent = "Refused: " + error.message; });
          };
          cell.appendChild(document.createTextNode(" "));
          cell.appendChild(stop);
        }
        return row("td", [s.name + " (unranked)", s.bot, s.against.join(", "), s.played + " / " + s.games + " (" + s.status + ")", results, cell]);
      }));
    });
  }

  function queueScrimmage(event) {
    event.preventDefault();
    var against = $("scrimmage-against").value.split(",").map(function (v) { return v.trim(); }).filter(Boolean);
    var body = { bot: $("scrimmage-bot").value.trim(), against: against, games: Number($("scrimmage-games").value) };
    var status = $("scrimmage-status");
    api("POST", "/scrimmages", body).then(function (made) {
      status.textContent = "Queued " + made.name + ": " + made.queued + " matches of " + made.bot + " against " + made.against.join(", ") + ".";
      return showScrimmages();
    }).catch(function (error) { status.textContent = "Refused: " + error.message; });
  }

  $("scrimmage-form").addEventListener("submit", queueScrimmage);
  $("sign-in").addEventListener("submit", function (event) { event.preventDefault(); signIn($("token").value.trim()); });
  $("submit-form").addEventListener("submit", submit);
  $("bot-kind").addEventListener("change", function () {
    var kind = $("bot-kind").value;
    document.querySelector(".kind-python").hidden = kind !== "python";
    document.querySelector(".kind-archive").hidden = kind !== "archive";
    document.querySelector(".kind-endpoint").hidden = kind !== "endpoint";
  });
  $("match-filters").addEventListener("change", function () { matchPage = 1; showMatches(); });
  $("match-filters").addEventListener("submit", function (event) { event.preventDefault(); matchPage = 1; showMatches(); });
  $("previous-page").addEventListener("click", function () { matchPage = Math.max(1, matchPage - 1); showMatches(); });
  $("next-page").addEventListener("click", function () { matchPage += 1; showMatches(); });
  $("rotate").addEventListener("click", function () {
    api("POST", "/owners/me/token").then(function (fresh) {
      if (!csrf) { sessionStorage.setItem(KEY, fresh.token); } // a session stays one
      $("new-token").textContent = "Your new token (shown once; the old one no longer works): " + fresh.token;
      $("new-token").hidden = false;
    });
  });
  $("revoke").addEventListener("click", function () {
    if (!window.confirm("Revoke your token? No token will work until the operator gives you a new one.")) { return; }
    api("DELETE", "/owners/me/token").then(function () { signOut(); $("sign-in-error").textContent = "Token revoked."; $("sign-in-error").hidden = false; });
  });
  function signOut() {
    var ended = csrf ? api("DELETE", "/sessions/current") : Promise.resolve();
    sessionStorage.removeItem(KEY);
    csrf = null;
    owner = null;
    return ended.then(function () {
      $("account").hidden = true;
      $("sign-in").hidden = false;
    });
  }
  $("sign-out").addEventListener("click", signOut);
  window.arenaOwner = { api: api, reload: enter };
  if (sessionStorage.getItem(KEY)) { signIn(sessionStorage.getItem(KEY)); } else { resume(); }
})();
