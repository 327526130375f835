// Canvass tenant pages: small enhancements over pages that work without them.
// Copy buttons: shown only where the clipboard can be written, they copy their data-copy text.
(function () {
  "use strict";
  if (!navigator.clipboard) return;
  document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
    button.hidden = false;
    var label = button.textContent;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  });
})();
