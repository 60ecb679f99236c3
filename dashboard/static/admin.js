// The operator's console: find accounts (suspend, lift), bots and versions (disqualify),
// teams; void a match; pause and resume competitions; each with a reason, and read the
// audit log. On the browser's session (an account with the operator's role), every
// write with the session's CSRF token.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.arenaDom.el;
  var signedIn = null; // the session (window.arenaDom.session)

  function api(method, path, body) { return signedIn.api(method, path, body); }

  function report(error) { $("console-status").textContent = error.message; }

  function row(cells) {
    var tr = el("tr");
    tr.append.apply(tr, cells);
    return tr;
  }

  function button(label, onclick) {
    var b = el("button", null, label);
    b.type = "button";
    b.addEventListener("click", onclick);
    return b;
  }

  function cellOf(nodes) {
    var cell = el("td");
    cell.append.apply(cell, nodes);
    return cell;
  }

  // An audited action: the reason field says why; then ``after`` shows the change.
  function act(path, after, body) {
    var reason = $("moderation-reason").value.trim();
    if (!reason && !body) { report(new Error("say why, for the audit log")); return; }
    api("POST", path, body || { reason: reason })
      .then(function (done) {
        $("console-status").textContent = done && done.target ? done.target + ": " + done.reason : "";
        return Promise.all([after(), showAudit()]);
      })
      .catch(report);
  }

  function moderate(account, action) {
    act("/admin/accounts/" + encodeURIComponent(account) + "/" + action, find);
  }

  function findBots() {
    var query = "?starting=" + encodeURIComponent($("find-bot").value.trim());
    return api("GET", "/admin/bots" + query).then(function (bots) {
      var body = $("found-bots").querySelector("tbody");
      body.replaceChildren.apply(body, bots.map(function (bot) {
        var path = "/admin/bots/" + encodeURIComponent(bot.name);
        var versions = bot.versions.map(function (v) {
          if (v.state === "disqualified") { return el("span", "error", "v" + v.number + " disqualified "); }
          var b = button("Disqualify v" + v.number, function () { act(path + "/versions/" + v.number + "/disqualify", findBots); });
          b.dataset.version = v.number;
          return b;
        });
        var whole = bot.disqualified_reason ? [el("span", "error", "disqualified: " + bot.disqualified_reason)]
          : [button("Disqualify the bot", function () { act(path + "/disqualify", findBots); })];
        var tr = row([el("td", null, bot.name), el("td", null, bot.team || "operator"), cellOf(versions),
          el("td", null, bot.versions.map(function (v) { return "v" + v.number + " " + v.state; }).join(", ")), cellOf(whole)]);
        tr.dataset.bot = bot.name;
        return tr;
      }));
    });
  }

  function findTeams() {
    var query = "?starting=" + encodeURIComponent($("find-team").value.trim());
    return api("GET", "/admin/teams" + query).then(function (teams) {
      var body = $("found-teams").querySelector("tbody");
      body.replaceChildren.apply(body, teams.map(function (team) {
        return row([el("td", null, team.name),
          el("td", null, team.members.map(function (m) { return m.name + " (" + m.role + ")"; }).join(", ")),
          el("td", null, team.bots.map(function (b) { return b.name; }).join(", "))]);
      }));
    });
  }

  function showCompetitions() {
    return api("GET", "/competitions").then(function (list) {
      var body = $("competitions").querySelector("tbody");
      body.replaceChildren.apply(body, list.map(function (c) {
        var path = "/competitions/" + encodeURIComponent(c.name) + "/";
        var actions = c.status === "open" ? [button("Pause", function () { act(path + "pause", showCompetitions, {}); })]
          : c.status === "paused" ? [button("Resume", function () { act(path + "resume", showCompetitions, {}); })] : [];
        return row([el("td", null, c.name), el("td", null, String(c.season)), el("td", "competition-state", c.status), cellOf(actions)]);
      }));
    });
  }

  function find() {
    var query = "?starting=" + encodeURIComponent($("find-name").value.trim());
    return api("GET", "/admin/accounts" + query).then(function (accounts) {
      var body = $("accounts").querySelector("tbody");
      body.replaceChildren.apply(body, accounts.map(function (account) {
        var action = account.suspended ? "lift" : "suspend";
        var button = el("button", null, account.suspended ? "Lift" : "Suspend");
        button.type = "button";
        button.dataset.account = account.name;
        button.addEventListener("click", function () { moderate(account.name, action); });
        var cell = el("td");
        cell.append(button);
        return row([el("td", null, account.name), el("td", null, account.role),
          el("td", "account-state", account.suspended ? "suspended" : "active"),
          el("td", null, account.reason || ""), cell]);
      }));
    });
  }

  function showAudit() {
    return api("GET", "/admin/audit").then(function (entries) {
      var body = $("audit").querySelector("tbody");
      body.replaceChildren.apply(body, entries.map(function (entry) {
        return row([el("td", null, entry.at.slice(0, 16).replace("T", " ") + " UTC"), el("td", null, entry.actor),
          el("td", null, entry.action), el("td", null, entry.target), el("td", null, entry.reason)]);
      }));
    });
  }

  $("find-form").addEventListener("submit", function (event) { event.preventDefault(); find().catch(report); });
  $("find-bots-form").addEventListener("submit", function (event) { event.preventDefault(); findBots().catch(report); });
  $("find-teams-form").addEventListener("submit", function (event) { event.preventDefault(); findTeams().catch(report); });
  $("void-form").addEventListener("submit", function (event) {
    event.preventDefault();
    act("/admin/matches/" + encodeURIComponent($("void-match").value) + "/void", function () { return Promise.resolve(); });
  });

  window.arenaDom.session().then(function (found) {
    if (!found) { $("not-operator").hidden = false; return; }
    signedIn = found;
    return Promise.all([find(), findBots(), findTeams(), showCompetitions(), showAudit()])
      .then(function () { $("console").hidden = false; })
      .catch(function () { $("not-operator").hidden = false; });
  });
})();
