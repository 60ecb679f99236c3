// The teams part of an owner's page: the teams one is in (members, roles, bots), make a
// team, invite (the captain: a one-time code and its link), join by a code or a link
// (/owner?join=CODE), leave, remove a member. Calls go through the owner page's API
// helper (its token, or the session's CSRF token on a write).
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.arenaDom.el;
  var me = null;

  function api(method, path, body) { return window.arenaOwner.api(method, path, body); }
  function say(text, cls) { var s = $("team-status"); s.className = cls || ""; s.textContent = text; }
  function refused(error) { say("Refused: " + error.message, "error"); }

  function button(label, onclick) {
    var b = el("button", null, label);
    b.type = "button";
    b.onclick = onclick;
    return b;
  }

  function teamSection(team) {
    var section = el("section", "own-team");
    section.dataset.team = team.name;
    var title = el("h3"), link = el("a", null, team.name);
    link.href = "/teams/" + encodeURIComponent(team.name);
    title.appendChild(link);
    section.appendChild(title);
    var captain = team.members.some(function (m) { return m.name === me.name && m.role === "captain"; });
    var list = el("ul", "members");
    team.members.forEach(function (m) {
      var item = el("li", null, m.name + " (" + m.role + ") ");
      if (captain && m.name !== me.name) {
        item.appendChild(button("Remove", function () { change("DELETE", "/teams/" + encodeURIComponent(team.name) + "/members/" + encodeURIComponent(m.name)); }));
      }
      list.appendChild(item);
    });
    section.appendChild(list);
    section.appendChild(el("p", null, team.bots.length ? "Bots: " + team.bots.map(function (b) { return b.name + (b.disqualified ? " (disqualified)" : ""); }).join(", ") : "No bots yet."));
    var actions = el("p");
    if (captain) { actions.appendChild(button("Invite someone", function () { invite(team.name, section); })); }
    actions.appendChild(button("Leave", function () { change("POST", "/teams/" + encodeURIComponent(team.name) + "/leave"); }));
    section.appendChild(actions);
    return section;
  }

  function invite(name, section) {
    api("POST", "/teams/" + encodeURIComponent(name) + "/invites").then(function (made) {
      var link = location.origin + "/owner?join=" + encodeURIComponent(made.code);
      var shown = el("p", "warning invite", "One-time code (shown once): ");
      shown.appendChild(el("code", "invite-code", made.code));
      shown.appendChild(document.createTextNode(" · link: "));
      shown.appendChild(el("code", "invite-link", link));
      section.appendChild(shown);
    }).catch(refused);
  }

  function change(method, path, body) {
    return api(method, path, body).then(function () { say(""); return window.arenaOwner.reload(); }).catch(refused);
  }

  function join(code) {
    return api("POST", "/teams/join", { code: code }).then(function (team) {
      $("join-offer").hidden = true;
      history.replaceState(null, "", "/owner");
      say("You joined " + team.name + ".", "ok");
      return window.arenaOwner.reload();
    }).catch(refused);
  }

  function show() {
    return api("GET", "/account/teams").then(function (teams) {
      var box = $("my-teams");
      box.replaceChildren.apply(box, teams.map(teamSection));
      var select = $("bot-team");
      var chosen = select.value;
      select.replaceChildren.apply(select, teams.map(function (t) { var o = el("option", null, t.name); o.value = t.name; return o; }));
      if (chosen) { select.value = chosen; }
    }).catch(refused);
  }

  document.addEventListener("arena-owner", function (event) {
    me = event.detail;
    var offered = new URLSearchParams(location.search).get("join");
    if (offered) { $("join-offer").hidden = false; $("join-offered").onclick = function () { join(offered); }; }
    show();
  });
  $("team-form").addEventListener("submit", function (event) {
    event.preventDefault();
    change("POST", "/teams", { name: $("team-name").value.trim() });
  });
  $("join-button").addEventListener("click", function () { join($("join-code").value.trim()); });
})();
