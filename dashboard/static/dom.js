// What the pages' scripts share: building the page's nodes, and calling the API.
(function () {
  "use strict";
  // A node: its tag, its class (optional), its text (optional).
  function el(tag, cls, content) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (content != null) { node.textContent = content; }
    return node;
  }

  var SUIT = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var RED = { H: true, D: true };

  // A card face: rank and suit symbol, red for hearts and diamonds; null is a card face
  // down. ``tag`` (default span) makes it a button where cards are chosen.
  function card(code, tag) {
    if (code == null) { return el(tag || "span", "card back", "\u00a0"); }
    if (code === "JK") { return el(tag || "span", "card joker", "\u2605"); }
    var rank = code.slice(0, -1), suit = code.slice(-1);
    var node = el(tag || "span", "card" + (RED[suit] ? " red" : ""), rankName(rank) + SUIT[suit]);
    node.title = code;
    return node;
  }

  function rankName(rank) { return rank === "T" ? "10" : rank; }

  // The API's refusal in one line (a request that fails validation: each field and why).
  function said(data, status) {
    var detail = data && data.detail;
    if (Array.isArray(detail)) {
      return detail.map(function (d) { return d.loc.slice(1).join(".") + ": " + d.msg; }).join("; ");
    }
    return detail || ("HTTP " + status);
  }

  // A call of the JSON API under /api/v1: its answer (null for 204), or an Error saying
  // why it was refused. ``headers``: the caller's credentials (a token, or the session's
  // CSRF token on a write).
  function api(method, path, body, headers) {
    var sent = Object.assign({}, headers || {});
    if (body !== undefined) { sent["Content-Type"] = "application/json"; }
    return fetch("/api/v1" + path, { method: method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (response) {
        if (response.status === 204) { return null; }
        return response.json().then(function (data) {
          if (!response.ok) { throw new Error(said(data, response.status)); }
          return data;
        });
      });
  }

  // The browser's session, if it is signed in: its account's name, and an ``api`` whose
  // writes carry the session's CSRF token (null: not signed in).
  function session() {
    return fetch("/api/v1/sessions/current").then(function (response) {
      if (!response.ok) { return null; }
      return response.json().then(function (signed) {
        return {
          name: signed.name,
          api: function (method, path, body) { return api(method, path, body, { "X-CSRF-Token": signed.csrf }); },
        };
      });
    });
  }

  window.arenaDom = { el: el, card: card, rankName: rankName, api: api, said: said, session: session };
})();
