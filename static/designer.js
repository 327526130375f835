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
    var body = new URLSearchParams(new FormData(form));
    body.append("action", button.value);
    fetch(form.getAttribute("action"), {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }).then(function (response) {
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

  document.addEventListener("change", function (event) {
    if (event.target.matches("select[data-type-of]")) showFieldsOfTypes(document);
    // A rule's value field suggests the answers of the question now picked.
    var value = event.target.name &&
      document.querySelector("input[data-values-of='" + event.target.name + "']");
    if (value) value.setAttribute("list", "values-" + event.target.value);
  });
  showFieldsOfTypes(document);
})();
