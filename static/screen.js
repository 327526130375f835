// One question per screen, enhanced: a letter (A, B, ...) or a number picks an option of the
// question on screen, Enter goes on. Without this script the same form works by clicks and
// taps; the server decides everything either way.
(function () {
  "use strict";
  var form = document.querySelector("form.survey.one-per-screen");
  if (!form) return;
  var next = form.querySelector('button[name="nav"][value="next"]');
  var hint = document.querySelector(".keys-hint");
  var options = Array.prototype.slice.call(
    form.querySelectorAll('.question input[type="radio"], .question input[type="checkbox"]')
  );
  // Points (NPS, scales, stars) are picked by their number; other options by a letter.
  var numbered = options.length > 0 && options.every(function (input) {
    return /^[0-9]+$/.test(input.value);
  });
  if (!numbered) {
    options.slice(0, 26).forEach(function (input, at) {
      var label = input.closest("label");
      if (!label) return;
      var key = document.createElement("kbd");
      key.className = "key";
      key.setAttribute("aria-hidden", "true");
      key.textContent = String.fromCharCode(65 + at);
      label.insertBefore(key, label.firstChild);
    });
  }
  if (hint && options.length > 0) hint.hidden = false;

  function typing(target) {
    var tag = target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" ||
      (tag === "INPUT" && !/^(radio|checkbox)$/.test(target.type));
  }

  var typed = "";
  var timer = null;
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Enter") {
      if (event.target.tagName === "TEXTAREA" || event.target.tagName === "BUTTON") return;
      if (next) {
        event.preventDefault();
        form.requestSubmit(next);
      }
      return;
    }
    if (typing(event.target) || event.key.length !== 1) return;
    var pick = null;
    if (numbered && /[0-9]/.test(event.key)) {
      // "1" then "0" picks 10 on a 0-10 scale, when typed within a second.
      typed = (typed + event.key).slice(-2);
      clearTimeout(timer);
      timer = setTimeout(function () { typed = ""; }, 1000);
      pick = options.filter(function (input) { return input.value === typed; })[0] ||
        options.filter(function (input) { return input.value === event.key; })[0];
    } else if (!numbered && /^[a-z]$/i.test(event.key)) {
      pick = options[event.key.toUpperCase().charCodeAt(0) - 65];
    }
    if (!pick) return;
    event.preventDefault();
    if (pick.type === "checkbox") pick.checked = !pick.checked; else pick.checked = true;
    pick.focus();
    pick.dispatchEvent(new Event("change", { bubbles: true }));
  });
})();
