// The replay: the table seen from above, seats around it, the pile in the middle.
// Step with the buttons or the arrow keys, or play it (space) at the chosen speed.
(function () {
  "use strict";
  var frames = JSON.parse(document.getElementById("frames").textContent);
  var names = JSON.parse(document.getElementById("names").textContent);
  var SUIT = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var RED = { H: true, D: true };
  var BASE_MS = 900;
  var index = 0;
  var timer = null;
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, content) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (content != null) { node.textContent = content; }
    return node;
  }

  // A card face: rank and suit symbol, red for hearts and diamonds; null is a card face down.
  function card(code) {
    if (code == null) { return el("span", "card back", "\u00a0"); }
    if (code === "JK") { return el("span", "card joker", "\u2605"); }
    var rank = code.slice(0, -1), suit = code.slice(-1);
    var node = el("span", "card" + (RED[suit] ? " red" : ""), (rank === "T" ? "10" : rank) + SUIT[suit]);
    node.title = code;
    return node;
  }

  function rankName(rank) { return rank === "T" ? "10" : rank; }

  function seatNode(f, seat) {
    var hand = f.hands[seat];
    var node = el("div", "seat");
    node.dataset.seat = seat;
    if (seat === f.to_act) { node.classList.add("to-act"); }
    if (!f.active[seat]) { node.classList.add("out"); }
    if (seat === f.seat) { node.classList.add("acted"); }
    node.appendChild(el("div", "who", names[seat] + " \u00b7 " + hand.length + (hand.length === 1 ? " card" : " cards")));
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

  function show() {
    var f = frames[index];
    $("position").textContent = "step " + index + " / " + (frames.length - 1) + " \u00b7 deal " + (f.deal + 1);
    $("scrubber").value = index;
    $("frame-title").textContent = f.title + (f.latency_ms != null ? "  (" + f.latency_ms.toFixed(2) + " ms)" : "");
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
  // so a moment can be shared).
  var moveLinks = [];
  function buildMoves() {
    var list = $("moves"), section = null, key = null;
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
      var link = el("a", "move " + f.kind, f.title);
      link.href = "#step=" + i;
      link.onclick = function (event) { event.preventDefault(); pause(); go(i); };
      var row = el("li");
      row.appendChild(link);
      section.appendChild(row);
      moveLinks.push(link);
    });
  }

  function stepInAddress() {
    var found = /^#step=(\d+)$/.exec(location.hash);
    return found ? Math.min(frames.length - 1, Number(found[1])) : 0;
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
  });
  window.addEventListener("hashchange", function () { var to = stepInAddress(); if (to !== index) { pause(); go(to); } });
  buildMoves();
  index = stepInAddress();
  show();
})();
