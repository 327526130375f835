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

// Sign-up: the survey address is made from the organisation's name as it is typed (by the
// server, so it is exactly what the sign-up would make) until the owner writes their own.
(function () {
  "use strict";
  var name = document.getElementById("name");
  var slug = document.getElementById("slug");
  var shown = document.getElementById("slug-shown");
  var suggest = document.getElementById("suggest");
  if (!name || !slug || !shown || !window.fetch) return;
  if (suggest) suggest.hidden = true;
  var own = slug.value !== "";
  var asked = 0;
  var timer;
  function show(text) { shown.textContent = text || "address"; }
  slug.addEventListener("input", function () {
    own = slug.value !== "";
    show(slug.value);
  });
  name.addEventListener("input", function () {
    if (own) return;
    clearTimeout(timer);
    timer = setTimeout(function () {
      var mine = ++asked;
      fetch("/tenant/sign-up/address?name=" + encodeURIComponent(name.value), { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (made) {
          if (!made || mine !== asked || own) return;
          slug.value = made.slug;
          show(made.slug + (made.taken ? " (taken: choose another)" : ""));
        })
        .catch(function () { /* the field stays as it is; the sign-up makes the address */ });
    }, 200);
  });
})();

// Responses: "Select all on this page" ticks every box in place (without JavaScript the link
// reloads the page with every box ticked).
(function () {
  "use strict";
  var link = document.getElementById("select-all");
  if (!link) return;
  link.addEventListener("click", function (event) {
    event.preventDefault();
    var boxes = document.querySelectorAll("input[name=reference]");
    var all = Array.prototype.every.call(boxes, function (box) { return box.checked; });
    boxes.forEach(function (box) { box.checked = !all; });
    link.textContent = all ? "Select all on this page" : "Clear the selection";
  });
})();

// Mailings: while one is being sent, its progress (and the chart above it) is fetched again
// every few seconds and put in place, leaving the template forms as typed.
(function () {
  "use strict";
  if (!document.querySelector("[data-sending]") || !window.fetch || !window.DOMParser) return;
  var ids = ["standing", "send"];
  var timer = setInterval(function () {
    fetch(location.href, { credentials: "same-origin" }).then(function (response) {
      return response.ok ? response.text() : Promise.reject(response.status);
    }).then(function (html) {
      var fresh = new DOMParser().parseFromString(html, "text/html");
      ids.forEach(function (id) {
        var now = document.getElementById(id);
        var then = fresh.getElementById(id);
        if (now && then) now.innerHTML = then.innerHTML;
      });
      if (!fresh.querySelector("[data-sending]")) clearInterval(timer);
    }).catch(function () { clearInterval(timer); });
  }, 4000);
})();
