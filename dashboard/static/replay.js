// The replay: the table seen from above, seats around it, the pile in the middle.
// Step with the buttons or the arrow keys, or play it (space) at the chosen speed.
// An owner signed in on /owner (the token in this tab) sees the match from their bots'
// seats: their cards face up, their decisions marked with the hand they held; "n" and
// "p" go to the next and previous decision of theirs, and #mine opens at the first.
(function () {
  "use strict";
  var TOKEN_KEY = "arena-owner-token";
  var frames = JSON.parse(document.getElementById("frames").textContent);
  var names = JSON.parse(document.getElementById("names").textContent);
  var mine = [];  // the reader's own seats (an owner's view)
  var BASE_MS = 900;
  var index = 0;
  var timer = null;
  var $ = function (id) { return document.getElementById(id); };

  var el = window.arenaDom.el;
  var card = window.arenaDom.card;
  var rankName = window.arenaDom.rankName;

  function seatNode(f, seat) {
    var hand = f.hands[seat];
    var node = el("div", "seat");
    node.dataset.seat = seat;
    if (seat === f.to_act) { node.classList.add("to-act"); }
    if (!f.active[seat]) { node.classList.add("out"); }
    if (seat === f.seat) { node.classList.add("acted"); }
    if (isMine(seat)) { node.classList.add("mine"); }
    node.appendChild(el("div", "who", names[seat] + (isMine(seat) ? " (yours)" : "") + " \u00b7 " + hand.length + (hand.length === 1 ? " card" : " cards")));
    var cards = el("div", "cards");
    hand.forEach(function (c) { cards.appendChild(card(c)); });
    node.appendChild(cards);
    var said = bubble(f, seat);
    if (said) { node.appendChild(el("div", "bubble " + said.cls, said.text)); }
    return node;
  }

  // What a seat said in this step: its claim, its call, its pass.
  function bubble(f, seat) {
    if (f.seat !== seat) { return null; }
    if (f.call) {
      var verb = f.call.call === "challenge" ? "I don't believe!" : "I believe";
      return { cls: "call " + (f.call.right ? "right" : "wrong"), text: verb };
    }
    if (f.kind === "play" && f.live) {
      return { cls: "claim", text: f.live.count + " \u00d7 " + rankName(f.live.rank) };
    }
    if (f.kind === "pass") { return { cls: "pass", text: "pass" }; }
    return { cls: "other", text: f.title.replace(names[seat] + ": ", "") };
  }

  function pileNode(f) {
    var pile = el("div", "pile");
    pile.appendChild(el("div", "counts", "pile " + f.pile + " \u00b7 stock " + f.stock + " \u00b7 discard " + f.discard +
      (f.round_rank ? " \u00b7 round of " + rankName(f.round_rank) + "s" : "")));
    if (f.revealed) {
      var shown = el("div", "revealed " + (f.revealed.truthful ? "true" : "bluff"));
      shown.appendChild(el("span", "verdict", f.revealed.truthful ? "true" : "bluff!"));
      f.revealed.cards.forEach(function (c) { shown.appendChild(card(c)); });
      pile.appendChild(shown);
    }
    var groups = el("ol", "groups");
    f.pile_groups.forEach(function (g, i) {
      var item = el("li", (i === f.pile_groups.length - 1 && f.live ? "group live" : "group") + (g.bluff ? " bluff" : ""));
      if (g.bluff) { item.title = "a bluff (the log is public)"; }
      item.appendChild(el("span", "claim", names[g.author] + ": " + g.count + " \u00d7 " + rankName(g.rank)));
      g.cards.forEach(function (c) { item.appendChild(card(c)); });
      groups.appendChild(item);
    });
    pile.appendChild(groups);
    return pile;
  }

  function isMine(seat) { return mine.indexOf(seat) >= 0; }

  // A decision of the reader's own bot: a step one of their seats took.
  function isOwnDecision(f) { return f.seat != null && isMine(f.seat) && f.kind !== "end"; }

  // The cards a seat held when it decided, as a row of cards (null: not to be seen).
  function heldNode(f) {
    var box = el("p", "held");
    if (!f.held) { return box; }
    box.appendChild(el("span", "label", (isMine(f.seat) ? "your bot held " : names[f.seat] + " held ")));
    f.held.forEach(function (c) { box.appendChild(card(c)); });
    return box;
  }

  // A call's verdict, as the move list and the table say it.
  function verdict(f) {
    if (!f.call) { return null; }
    return f.call.right ? { cls: "right", text: "\u2713 right" } : { cls: "wrong", text: "\u2717 wrong" };
  }

  function show() {
    var f = frames[index];
    $("position").textContent = "step " + index + " / " + (frames.length - 1) + " \u00b7 deal " + (f.deal + 1);
    $("scrubber").value = index;
    $("frame-title").textContent = f.title + (f.latency_ms != null ? "  (" + f.latency_ms.toFixed(2) + " ms)" : "");
    $("frame-held").replaceWith(Object.assign(heldNode(f), { id: "frame-held" }));
    var table = $("table");
    var seats = f.hands.map(function (_, seat) { return seatNode(f, seat); });
    var count = seats.length;
    seats.forEach(function (node, seat) {  // around the table, seat 0 at the bottom
      var angle = Math.PI / 2 + (2 * Math.PI * seat) / count;
      node.style.left = (50 + 36 * Math.cos(angle)) + "%";
      node.style.top = (50 + 38 * Math.sin(angle)) + "%";
    });
    table.replaceChildren.apply(table, [pileNode(f)].concat(seats));
    var events = $("frame-events");
    events.replaceChildren.apply(events, f.events.map(function (e) { return el("li", null, e); }));
    document.querySelectorAll("#deals li").forEach(function (li) {
      li.classList.toggle("current", Number(li.dataset.deal) === f.deal);
    });
    var previous = document.querySelector("#moves a.current");
    if (previous) { previous.classList.remove("current"); previous.removeAttribute("aria-current"); }
    var current = moveLinks[index];
    current.classList.add("current");
    current.setAttribute("aria-current", "step");
    var list = $("moves");  // keep the current move in sight without moving the page
    var top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
    if (location.hash !== "#step=" + index) { history.replaceState(null, "", "#step=" + index); }
  }

  function go(to) { index = Math.max(0, Math.min(frames.length - 1, to)); show(); }

  // The move list: every step, under its deal, a link to it (the step is in the address,
  // so a moment can be shared); a call says whether it was right, the reader's own
  // decisions are marked with the hand they held.
  var moveLinks = [];
  function buildMoves() {
    var list = $("moves"), section = null, key = null;
    moveLinks = [];
    list.replaceChildren();
    frames.forEach(function (f, i) {
      var mine = f.kind === "end" ? "end" : f.deal;  // deals as sections, then the end
      if (mine !== key) {
        key = mine;
        var item = el("li", "deal");
        item.appendChild(el("h3", null, mine === "end" ? "the end" : "deal " + (f.deal + 1)));
        section = el("ol", "steps");
        item.appendChild(section);
        list.appendChild(item);
      }
      var link = el("a", "move " + f.kind + (isOwnDecision(f) ? " mine" : ""), f.title);
      var said = verdict(f);
      if (said) { link.appendChild(el("span", "verdict " + said.cls, " " + said.text)); }
      if (isOwnDecision(f) && f.held) {
        var held = el("span", "held");
        f.held.forEach(function (c) { held.appendChild(card(c)); });
        link.appendChild(held);
      }
      link.href = "#step=" + i;
      link.onclick = function (event) { event.preventDefault(); pause(); go(i); };
      var row = el("li");
      row.appendChild(link);
      section.appendChild(row);
      moveLinks.push(link);
    });
  }

  function stepInAddress(hash) {
    if (hash === "#mine") { return ownDecision(-1, 1); }
    var found = /^#step=(\d+)$/.exec(hash);
    return found ? Math.min(frames.length - 1, Number(found[1])) : 0;
  }

  // The reader's next (direction 1) or previous (-1) decision from ``from``; ``from``
  // itself when there is none.
  function ownDecision(from, direction) {
    for (var i = from + direction; i >= 0 && i < frames.length; i += direction) {
      if (isOwnDecision(frames[i])) { return i; }
    }
    return Math.max(0, from);
  }

  function tick() {
    if (index >= frames.length - 1) { pause(); return; }
    go(index + 1);
    timer = setTimeout(tick, BASE_MS / Number($("speed").value));
  }
  function play() {
    if (timer) { return; }
    if (index >= frames.length - 1) { go(0); }
    $("play").textContent = "\u275a\u275a pause";
    $("play").setAttribute("aria-pressed", "true");
    timer = setTimeout(tick, BASE_MS / Number($("speed").value));
  }
  function pause() {
    clearTimeout(timer);
    timer = null;
    $("play").textContent = "\u25b6 play";
    $("play").setAttribute("aria-pressed", "false");
  }

  $("scrubber").max = frames.length - 1;
  $("scrubber").oninput = function () { pause(); go(Number(this.value)); };
  $("first").onclick = function () { pause(); go(0); };
  $("back").onclick = function () { pause(); go(index - 1); };
  $("forward").onclick = function () { pause(); go(index + 1); };
  $("last").onclick = function () { pause(); go(frames.length - 1); };
  $("play").onclick = function () { if (timer) { pause(); } else { play(); } };
  document.querySelectorAll("#deals a[data-start]").forEach(function (a) {
    a.onclick = function (event) { event.preventDefault(); pause(); go(Number(a.dataset.start)); };
  });
  document.addEventListener("keydown", function (event) {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") { return; }
    if (event.key === "ArrowRight") { pause(); go(index + 1); }
    if (event.key === "ArrowLeft") { pause(); go(index - 1); }
    if (event.key === " ") { event.preventDefault(); $("play").click(); }
    if (mine.length && event.key === "n") { pause(); go(ownDecision(index, 1)); }
    if (mine.length && event.key === "p") { pause(); go(ownDecision(index, -1)); }
  });
  $("next-mine").onclick = function () { pause(); go(ownDecision(index, 1)); };
  $("previous-mine").onclick = function () { pause(); go(ownDecision(index, -1)); };
  window.addEventListener("hashchange", function () { var to = stepInAddress(location.hash); if (to !== index) { pause(); go(to); } });

  // With an owner's token, the match as the owner's bots saw it (the server decides
  // what that is: their own cards until the log is public, every card after).
  function ownView() {
    var token = sessionStorage.getItem(TOKEN_KEY);
    var id = $("replay").dataset.match;
    if (!token || !id) { return Promise.resolve(); }
    return fetch("/api/v1/matches/" + id + "/replay", { headers: { Authorization: "Bearer " + token } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (replay) {
        if (!replay || !replay.mine.length) { return; }
        frames = replay.frames;
        names = replay.names;
        mine = replay.mine;
        var note = $("own-view");
        note.textContent = "Your view: " + replay.mine.map(function (s) { return names[s] + " (seat " + s + ")"; }).join(", ") +
          " \u00b7 " + replay.disclosure + " \u00b7 n / p: your next / previous decision";
        note.hidden = false;
        $("next-mine").hidden = $("previous-mine").hidden = false;
        var shown = $("disclosure");
        if (shown) { shown.hidden = true; }
      }).catch(function () { /* the public view stays */ });
  }

  var asked = location.hash;  // #mine waits for the owner's view to know which seats
  buildMoves();
  index = stepInAddress(asked);
  show();
  ownView().then(function () {
    if (!mine.length) { return; }
    buildMoves();
    index = stepInAddress(asked === "#mine" ? asked : location.hash);
    show();
  });
})();
