// The designer, enhanced: a question's type shows only the fields it uses as soon as it is
// picked, and add / move / remove / duplicate happen in place. The server still does the work:
// the form is posted in the background and its answer (the same page it would send without
// this script) replaces the form, so the numbering and the logic lists have one source. Focus
// goes to the control the button's fragment names, as it does after a reload.
(function () {
  "use strict";
  if (!window.fetch || !window.DOMParser) return;

  // Shows each question's field groups for its type; the "Show its fields" buttons are for
  // browsers without this script.
  function showFieldsOfTypes(root) {
    root.querySelectorAll("select[data-type-of]").forEach(function (select) {
      var block = document.getElementById(select.getAttribute("data-type-of"));
      if (!block) return;
      block.querySelectorAll("[data-types]").forEach(function (group) {
        group.hidden = group.getAttribute("data-types").split(" ").indexOf(select.value) < 0;
      });
    });
    root.querySelectorAll(".apply-type").forEach(function (button) { button.hidden = true; });
  }

  // Posts the form in the background as its button `action` would.
  function send(form, action) {
    var body = new URLSearchParams(new FormData(form));
    body.append("action", action);
    return fetch(form.getAttribute("action"), {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
  }

  function structural(button) {
    return button && button.name === "action" && button.value !== "save" &&
      button.closest("form.designer");
  }

  var busy = false;
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!structural(button) || busy) return;
    var form = button.closest("form");
    event.preventDefault();
    busy = true;
    send(form, button.value).then(function (response) {
      if (!response.ok) throw new Error("status " + response.status);
      return response.text();
    }).then(function (html) {
      var page = new DOMParser().parseFromString(html, "text/html");
      var fresh = page.querySelector("form.designer");
      if (!fresh) throw new Error("no designer in the answer");
      form.replaceWith(fresh);
      showFieldsOfTypes(fresh);
      // The status region stays in the page, so screen readers announce the new text.
      var status = document.getElementById("designer-status");
      var said = page.getElementById("designer-status");
      if (status && said) {
        status.className = said.className;
        status.textContent = said.textContent;
      }
      // The button's fragment names the control to land on, as it does without this script.
      var anchor = (button.getAttribute("formaction") || "").split("#")[1];
      var target = anchor && document.getElementById(anchor);
      if (target) {
        target.focus({ preventScroll: true });
        target.scrollIntoView({ block: "center" });
      }
      busy = false;
      changed();
    }).catch(function () {
      // Anything unexpected: do what the button does without this script.
      // (requestSubmit sends no click, so this handler does not catch it again.)
      busy = false;
      form.requestSubmit(button);
    });
  });

  // A failed save's list links to each wrong field: going there also puts the cursor in it.
  document.addEventListener("click", function (event) {
    var link = event.target.closest(".alert a[href^='#']");
    var field = link && document.getElementById(link.getAttribute("href").slice(1));
    if (!field) return;
    event.preventDefault();
    field.scrollIntoView({ block: "center" });
    field.focus();
  });

  // Unsaved changes. A draft is saved by itself a moment after the owner stops typing (a
  // published survey is not: each save of it starts a new version, so Save stays the way);
  // the status says which state the form is in, and leaving with changes unsaved asks first.
  var dirty = false;
  var timer = null;
  var saving = false;
  function say(text, kind) {
    var status = document.getElementById("designer-status");
    if (!status) return;
    status.className = kind || "notice";
    status.textContent = text;
  }
  function designer() { return document.querySelector("form.designer"); }
  function changed() {
    dirty = true;
    var form = designer();
    if (!form || !form.hasAttribute("data-autosave")) {
      say("Unsaved changes: press Save to keep them.");
      return;
    }
    say("Unsaved changes: saving in a moment…");
    clearTimeout(timer);
    timer = setTimeout(autosave, 1500);
  }
  function autosave() {
    var form = designer();
    if (!form) return;
    if (busy || saving) { timer = setTimeout(autosave, 500); return; }
    saving = true;
    dirty = false;
    say("Saving…");
    send(form, "save").then(function (response) {
      return response.text().then(function (html) { return { response: response, html: html }; });
    }).then(function (answer) {
      saving = false;
      var page = new DOMParser().parseFromString(answer.html, "text/html");
      var fresh = page.querySelector("form.designer");
      if (answer.response.ok && fresh) {
        // Saved: the form now stands on the new version, and its new questions get the ids
        // they were saved under (matched by their text: a blank block is not saved, so the
        // blocks' numbers may differ).
        form.querySelector("input[name=edited_from]").value =
          fresh.querySelector("input[name=edited_from]").value;
        var ids = function (root) {
          return Array.prototype.map.call(root.querySelectorAll("input[type=hidden][name$='.id']"), function (input) {
            var text = root.querySelector("input[name='" + input.name.replace(/\.id$/, ".text") + "']");
            return { input: input, text: text ? text.value.trim() : "" };
          });
        };
        var mine = ids(form);
        var known = mine.map(function (block) { return block.input.value; });
        var made = ids(fresh).filter(function (block) { return known.indexOf(block.input.value) < 0; });
        mine.forEach(function (block) {
          if (block.input.value !== "") return;
          var match = made.findIndex(function (m) { return m.text === block.text && block.text !== ""; });
          if (match >= 0) block.input.value = made.splice(match, 1)[0].input.value;
        });
        if (dirty) { changed(); return; }
        var now = new Date();
        say("Saved at " + now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) + ".");
      } else if (answer.response.status === 409 && fresh) {
        // Changed elsewhere: show the server's page, which keeps these changes and says so.
        form.replaceWith(fresh);
        showFieldsOfTypes(fresh);
        dirty = true;
        say("Not saved: this survey was changed elsewhere. See the message below.", "alert");
      } else if (answer.response.status === 422) {
        dirty = true;
        var count = page.querySelectorAll("#problems li").length;
        say("Not saved yet: " + (count === 1 ? "one thing needs" : count + " things need") +
          " your attention. Press Save to see where.", "alert");
      } else {
        dirty = true;
        say("Not saved: the server could not be reached. Press Save to try again.", "alert");
      }
    }).catch(function () {
      saving = false;
      dirty = true;
      say("Not saved: the server could not be reached. Press Save to try again.", "alert");
    });
  }
  document.addEventListener("input", function (event) {
    if (event.target.closest("form.designer")) changed();
  });
  document.addEventListener("submit", function (event) {
    if (event.target.matches("form.designer")) { dirty = false; clearTimeout(timer); }
  });
  window.addEventListener("beforeunload", function (event) {
    if (!dirty && !saving) return;
    event.preventDefault();
    event.returnValue = "";
  });

  document.addEventListener("change", function (event) {
    if (event.target.closest("form.designer") && event.target.matches("select, input[type=checkbox], input[type=radio]")) changed();
    if (event.target.matches("select[data-type-of]")) showFieldsOfTypes(document);
    // A rule's value field suggests the answers of the question now picked.
    var value = event.target.name &&
      document.querySelector("input[data-values-of='" + event.target.name + "']");
    if (value) value.setAttribute("list", "values-" + event.target.value);
  });
  showFieldsOfTypes(document);
})();
