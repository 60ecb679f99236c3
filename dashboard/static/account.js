// The account's own page: its API tokens (made, listed, revoked) and its password, on
// the browser's session; every write carries the session's CSRF token.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.arenaDom.el;
  var signedIn = null; // the session (window.arenaDom.session)

  function api(method, path, body) { return signedIn.api(method, path, body); }

  function day(moment) { return moment ? moment.slice(0, 16).replace("T", " ") + " UTC" : "never"; }

  function showTokens() {
    return api("GET", "/tokens").then(function (tokens) {
      var rows = tokens.map(function (token) {
        var cell = el("td");
        if (token.state === "live") {
          var revoke = el("button", null, "Revoke");
          revoke.type = "button";
          revoke.dataset.token = token.id;
          revoke.addEventListener("click", function () {
            api("DELETE", "/tokens/" + token.id).then(showTokens).catch(report);
          });
          cell.append(revoke);
        }
        var row = el("tr");
        row.append(
          el("td", null, token.label), el("td", null, token.scopes.join(", ")),
          el("td", null, day(token.created_at)), el("td", null, day(token.expires_at)),
          el("td", "token-state", token.state), cell
        );
        return row;
      });
      var body = $("tokens").querySelector("tbody");
      body.replaceChildren.apply(body, rows);
    });
  }

  function report(error) { $("account-status").textContent = error.message; }

  $("token-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var scopes = Array.prototype.map.call(document.querySelectorAll("input[name=scope]:checked"), function (box) { return box.value; });
    var days = $("token-days").value ? Number($("token-days").value) : null;
    api("POST", "/tokens", { label: $("token-label").value.trim(), scopes: scopes, days: days }).then(function (made) {
      $("token-made").textContent = "Your new token (shown once): " + made.token;
      $("token-made").hidden = false;
      return showTokens();
    }).catch(report);
  });

  $("password-form").addEventListener("submit", function (event) {
    event.preventDefault();
    api("POST", "/account/password", { current: $("password-current").value, new: $("password-new").value }).then(function (ended) {
      $("account-status").textContent = "Password changed; " + ended.ended + " other sessions signed out.";
      $("password-form").reset();
    }).catch(report);
  });

  window.arenaDom.session().then(function (found) {
    if (!found) { $("not-signed-in").hidden = false; return; }
    signedIn = found;
    $("account-owner").textContent = found.name;
    $("account-settings").hidden = false;
    return showTokens();
  }).catch(report);
})();
