// A person's table. On /play: the form that opens one (POST /api/v1/tables, with the
// owner's token when signed in on /owner). On /tables/ID: the table from the person's
// seat, drawn from GET /api/v1/tables/ID (waiting for the person's turn), and their
// actions sent to POST /api/v1/tables/ID/act; once it is over, the page shows its replay.
(function () {
  "use strict";
  var TOKEN_KEY = "arena-owner-token";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.arenaDom.el;
  var card = window.arenaDom.card;
  var rankName = window.arenaDom.rankName;

  function headers() {
    var token = sessionStorage.getItem(TOKEN_KEY);
    var found = { "Content-Type": "application/json" };
    if (token) { found.Authorization = "Bearer " + token; }
    return found;
  }

  function answer(response) {
    return response.json().then(function (body) {
      if (!response.ok) { throw new Error(typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)); }
      return body;
    });
  }

  // ---------------------------------------------------------------- /play: the form
  var form = $("new-table");
  // The seats' words follow the rules: seat 1 deals first; the dealer leads the first
  // deal under some presets, the player on its left under the others.
  function seatWords() {
    var leads = JSON.parse($("seat").dataset.leads)[$("rules").value];
    Array.prototype.forEach.call($("seat").options, function (option, seat) {
      option.textContent = (seat + 1) + (seat === 0 ? " (deals first)" : "") + (seat === leads ? " (leads the first deal)" : "");
    });
  }
  if (form) {
    $("rules").addEventListener("change", seatWords);
    seatWords();
    form.onsubmit = function (event) {
      event.preventDefault();
      var bots = Array.prototype.map.call(document.querySelectorAll("select.bot"), function (s) { return s.value; })
        .filter(function (value) { return value; });
      var body = { rules: $("rules").value, bots: bots, seat: Math.min(Number($("seat").value), bots.length) };
      $("sit").disabled = true;
      fetch("/api/v1/tables", { method: "POST", headers: headers(), body: JSON.stringify(body) })
        .then(answer)
        .then(function (table) { location.href = table.url; })
        .catch(function (error) {
          $("refusal").textContent = error.message;
          $("refusal").hidden = false;
          $("sit").disabled = false;
        });
    };
    return;
  }

  // ---------------------------------------------------------------- /tables/ID: the seat
  var section = $("live-table");
  if (!section) { return; }
  var tableId = section.dataset.table;
  var api = "/api/v1/tables/" + tableId;
  var state = null;
  var chosen = [];  // the cards chosen in the hand, in the order chosen
  var countdown = null;
  var sending = false;

  function seatNode(seat) {
    var o = state.observation;
    var mine = seat === state.seat;
    var node = el("div", "seat" + (mine ? " mine" : ""));
    node.dataset.seat = seat;
    if (o.to_act === seat) { node.classList.add("to-act"); }
    if (!o.active[seat]) { node.classList.add("out"); }
    var size = o.hand_sizes[seat];
    node.appendChild(el("div", "who", state.names[seat] + (mine ? " (you)" : "") + " \u00b7 " + size + (size === 1 ? " card" : " cards")));
    var cards = el("div", "cards");
    if (mine) {
      o.hand.forEach(function (code) {
        var button = card(code, "button");
        button.dataset.card = code;
        if (chosen.indexOf(code) >= 0) { button.classList.add("chosen"); }
        button.setAttribute("aria-pressed", chosen.indexOf(code) >= 0 ? "true" : "false");
        button.onclick = function () { choose(code); };
        cards.appendChild(button);
      });
    } else {
      for (var i = 0; i < Math.min(size, 12); i++) { cards.appendChild(card(null)); }
      if (size > 12) { cards.appendChild(el("span", "more", "+" + (size - 12))); }
    }
    node.appendChild(cards);
    return node;
  }

  function pileNode() {
    var o = state.observation;
    var pile = el("div", "pile");
    pile.appendChild(el("div", "counts", "pile " + o.pile_size + " \u00b7 stock " + o.stock_size + " \u00b7 discard " + o.discard_size +
      (o.round_rank ? " \u00b7 round of " + rankName(o.round_rank) + "s" : "")));
    if (o.live) {
      pile.appendChild(el("div", "group live", state.names[o.live.author] + " claims " + o.live.count + " \u00d7 " +
        rankName(o.live.rank) + " (" + o.live.placed + " placed)"));
    }
    return pile;
  }

  function drawTable() {
    var table = $("table");
    var o = state.observation;
    if (!o) { table.replaceChildren(); return; }
    var count = o.hand_sizes.length;
    var seats = o.hand_sizes.map(function (_, seat) { return seatNode(seat); });
    seats.forEach(function (node, seat) {  // around the table, the person at the bottom
      var angle = Math.PI / 2 + (2 * Math.PI * ((seat - state.seat + count) % count)) / count;
      node.style.left = (50 + 36 * Math.cos(angle)) + "%";
      node.style.top = (50 + 38 * Math.sin(angle)) + "%";
    });
    table.replaceChildren.apply(table, [pileNode()].concat(seats));
  }

  function legal(kind) {
    return state.legal.filter(function (l) { return l.do === kind; })[0] || null;
  }

  function drawControls() {
    var turn = state.status === "your_turn";
    $("controls").hidden = !turn;
    if (!turn) { return; }
    var play = legal("play");
    $("claim").hidden = !play;
    if (play) {
      var ranks = $("claim-rank");
      var kept = ranks.value;
      ranks.replaceChildren.apply(ranks, play.ranks.map(function (r) { var o = el("option", null, rankName(r)); o.value = r; return o; }));
      if (play.ranks.indexOf(kept) >= 0) { ranks.value = kept; }
      $("count-label").hidden = play.honest;
      $("claim-count").max = play.max_count;
      $("play-cards").disabled = !chosen.length || chosen.length > play.max_cards;
    }
    $("challenge").hidden = !legal("challenge");
    $("believe").hidden = !legal("believe");
    $("pass").hidden = !legal("pass");
    var fours = legal("quartets");
    $("quartets").hidden = !fours;
    var box = $("fours");
    box.replaceChildren();
    if (fours) {
      fours.ranks.forEach(function (r) {
        var label = el("label", null, " four " + rankName(r) + "s ");
        var tick = el("input");
        tick.type = "checkbox";
        tick.value = r;
        tick.className = "four";
        label.prepend(tick);
        box.appendChild(label);
      });
    }
  }

  // A place as the site says it everywhere (dashboard/pages.py: ordinal).
  function ordinal(n) {
    var teen = n % 100 >= 10 && n % 100 <= 20;
    return n + (teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] || "th");
  }

  function drawStatus() {
    clearInterval(countdown);
    var line = $("status");
    if (state.status === "your_turn") {
      var left = state.seconds_left;
      var started = Date.now();
      var tick = function () {
        var now = Math.max(0, left - (Date.now() - started) / 1000);
        line.textContent = "Your turn \u00b7 " + Math.ceil(now) + " s left" +
          (state.deal != null ? " \u00b7 deal " + (state.deal + 1) + " of " + state.deals : "") +
          (state.strikes ? " \u00b7 late answers: " + state.strikes : "") +
          (state.illegal ? " \u00b7 illegal actions: " + state.illegal : "");
      };
      tick();
      countdown = setInterval(tick, 500);
    } else if (state.status === "waiting") {
      line.textContent = "The bots are playing\u2026";
    } else {
      var place = state.place ? "you placed " + ordinal(state.place) + " of " + state.names.length : "";
      line.textContent = "Over" + (state.forfeit ? ": you forfeited (" + state.forfeit + ")" : "") +
        (place ? (state.forfeit ? ", " : ": ") + place : "") + ". ";
      var link = el("a", null, state.status === "done" ? "See the replay" : "Play again");
      link.id = "replay-link";
      link.href = state.status === "done" ? "/tables/" + tableId : "/play";
      line.appendChild(link);
    }
  }

  function drawSaid() {
    var list = $("said");
    list.replaceChildren.apply(list, (state.said || []).slice(-40).map(function (text) { return el("li", null, text); }));
    list.scrollTop = list.scrollHeight;
  }

  function draw() {
    chosen = chosen.filter(function (c) { return state.observation && state.observation.hand.indexOf(c) >= 0; });
    var refused = $("refused");
    refused.hidden = !state.refused;
    refused.textContent = state.refused
      ? "Not carried out: " + state.refused + ". An illegal action: as the rules say, you pick up the pile (if there is one) and the next player leads; counted (10 forfeit)."
      : "";
    drawTable();
    drawControls();
    drawStatus();
    drawSaid();
    $("leave").hidden = state.status === "done" || state.status === "abandoned";
  }

  function choose(code) {
    var at = chosen.indexOf(code);
    if (at >= 0) { chosen.splice(at, 1); } else { chosen.push(code); }
    if (!$("count-label").hidden) { $("claim-count").value = Math.max(1, chosen.length); }
    drawTable();
    drawControls();
  }

  function send(action) {
    if (sending) { return; }
    sending = true;
    clearInterval(countdown);  // else its next tick says "Your turn" again while waiting
    $("controls").hidden = true;
    $("status").textContent = "The bots are playing\u2026";
    fetch(api + "/act", { method: "POST", headers: headers(), body: JSON.stringify({ action: action }) })
      .then(answer)
      .then(function (next) { sending = false; state = next; chosen = []; draw(); follow(); })
      .catch(function (error) { sending = false; $("refused").textContent = error.message; $("refused").hidden = false; follow(); });
  }

  // Wait for the person's turn (or the end), then draw it: one wait at a time.
  var following = false;
  function follow() {
    if (following) { return; }
    if (state && (state.status === "your_turn" || state.status === "done" || state.status === "abandoned")) { return; }
    following = true;
    fetch(api + "?wait=25", { headers: headers() })
      .then(answer)
      .then(function (next) { following = false; state = next; draw(); follow(); })
      .catch(function () { following = false; setTimeout(follow, 2000); });
  }

  $("play-cards").onclick = function () {
    var play = legal("play");
    var count = play.honest ? chosen.length : Number($("claim-count").value);
    send({ do: "play", cards: chosen.slice(), rank: $("claim-rank").value, count: count });
  };
  $("challenge").onclick = function () { send({ do: "challenge" }); };
  $("believe").onclick = function () { send({ do: "believe" }); };
  $("pass").onclick = function () { send({ do: "pass" }); };
  $("quartets").onclick = function () {
    var ranks = Array.prototype.filter.call(document.querySelectorAll("input.four"), function (t) { return t.checked; })
      .map(function (t) { return t.value; });
    send({ do: "quartets", ranks: ranks });
  };
  $("leave").onclick = function () {
    if (!confirm("Leave the table? Your seat forfeits.")) { return; }
    clearInterval(countdown);
    $("controls").hidden = true;
    fetch(api + "/leave", { method: "POST", headers: headers() }).then(function () { state = null; follow(); });
  };

  follow();
})();
