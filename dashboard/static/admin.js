// The operator's console: find accounts, suspend or lift them with a reason, and read the
// audit log; on the browser's session (an account with the operator's role), every
// write with the session's CSRF token.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.arenaDom.el;
  var csrf = null;

  function api(method, path, body) {
    return window.arenaDom.api(method, path, body, { "X-CSRF-Token": csrf });
  }

  function report(error) { $("console-status").textContent = error.message; }

  function row(cells) {
    var tr = el("tr");
    tr.append.apply(tr, cells);
    return tr;
  }

  function moderate(account, action) {
    var reason = $("moderation-reason").value.trim();
    if (!reason) { report(new Error("say why, for the audit log")); return; }
    api("POST", "/admin/accounts/" + encodeURIComponent(account) + "/" + action, { reason: reason })
      .then(function () { $("console-status").textContent = ""; return Promise.all([find(), showAudit()]); })
      .catch(report);
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

  fetch("/api/v1/sessions/current").then(function (response) {
    if (!response.ok) { $("not-operator").hidden = false; return; }
    return response.json().then(function (signed) {
      csrf = signed.csrf;
      return Promise.all([find(), showAudit()]).then(function () { $("console").hidden = false; })
        .catch(function () { $("not-operator").hidden = false; });
    });
  });
})();
