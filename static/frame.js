// A survey page shown in another site's frame tells that page its content's height (see
// embed.js), whenever it changes, so the frame can fit it. Nothing else is sent.
(function () {
  "use strict";
  if (window.parent === window) return;
  // In a frame the page is as tall as its content, not at least the frame's height.
  document.documentElement.classList.add("in-frame");
  function tell() {
    // The body's own height: the document's is at least the frame's, so it could never shrink.
    var height = Math.ceil(document.body.getBoundingClientRect().height);
    window.parent.postMessage({ canvass: "height", height: height }, "*");
  }
  window.addEventListener("load", tell);
  if (window.ResizeObserver) new ResizeObserver(tell).observe(document.body);
  tell();
})();
