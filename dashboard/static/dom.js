// What the pages' scripts share: building the page's nodes.
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

  window.arenaDom = { el: el, card: card, rankName: rankName };
})();
