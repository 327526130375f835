// For the web page a survey is embedded in: each Canvass survey's frame (an iframe marked
// data-canvass) takes the height of its content, as the survey's page tells it, so the page
// scrolls as one and no frame shows a scroll bar of its own. Without this script the frame
// keeps the height its code gives it.
(function () {
  "use strict";
  window.addEventListener("message", function (event) {
    var said = event.data;
    if (!said || said.canvass !== "height" || typeof said.height !== "number") return;
    var frames = document.querySelectorAll("iframe[data-canvass]");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        frames[i].height = String(Math.max(200, Math.min(20000, Math.ceil(said.height))));
      }
    }
  });
})();
