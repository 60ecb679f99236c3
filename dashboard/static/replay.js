// The replay: step through the frames the server computed (buttons, or the arrow keys).
(function () {
  "use strict";
  var frames = JSON.parse(document.getElementById("frames").textContent);
  var names = JSON.parse(document.getElementById("names").textContent);
  var index = 0;

  function text(tag, content, cls) {
    var node = document.createElement(tag);
    node.textContent = content;
    if (cls) { node.className = cls; }
    return node;
  }

  function show() {
    var f = frames[index];
    document.getElementById("position").textContent = "step " + index + " / " + (frames.length - 1) + " · deal " + (f.deal + 1);
    document.getElementById("frame-title").textContent = f.title + (f.latency_ms != null ? "  (" + f.latency_ms.toFixed(2) + " ms)" : "");
    var claim = f.live ? names[f.live.author] + " claims " + f.live.count + " × " + f.live.rank + " (" + f.live.placed + " placed)" : "no live claim";
    document.getElementById("table-state").textContent = "pile " + f.pile + " · discard " + f.discard + " · stock " + f.stock + " · round " + (f.round_rank || "-") + " · " + claim + " · phase " + f.phase + (f.to_act != null ? " · " + names[f.to_act] + " to act" : "");
    var events = document.getElementById("frame-events");
    events.replaceChildren.apply(events, f.events.map(function (e) { return text("li", e); }));
    var hands = document.getElementById("hands");
    hands.replaceChildren.apply(hands, f.hands.map(function (hand, seat) {
      var row = document.createElement("div");
      row.className = "hand" + (seat === f.to_act ? " to-act" : "") + (f.active[seat] ? "" : " out");
      row.dataset.seat = seat;
      row.appendChild(text("span", names[seat] + " (" + hand.length + ")", "who"));
      hand.forEach(function (card) { row.appendChild(text("span", card || "?", card ? "card" : "card back")); });
      return row;
    }));
  }

  function go(to) { index = Math.max(0, Math.min(frames.length - 1, to)); show(); }
  document.getElementById("first").onclick = function () { go(0); };
  document.getElementById("back").onclick = function () { go(index - 1); };
  document.getElementById("forward").onclick = function () { go(index + 1); };
  document.getElementById("last").onclick = function () { go(frames.length - 1); };
  document.addEventListener("keydown", function (event) {
    if (event.key === "ArrowRight") { go(index + 1); }
    if (event.key === "ArrowLeft") { go(index - 1); }
  });
  show();
})();
