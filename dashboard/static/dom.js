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

  window.arenaDom = { el: el };
})();
