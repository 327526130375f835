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
      // Cards the owner unfolded stay unfolded (the server unfolds only those it must).
      var open = openCards(form);
      fresh.querySelectorAll("details.card-fold").forEach(function (card) {
        if (open.indexOf(cardId(card)) >= 0) card.open = true;
      });
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
        unfold(target);
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

  // A question card's id (its question's), to know it again in a form drawn anew.
  function cardId(card) {
    var id = card.querySelector("input[type=hidden][name$='.id']");
    return id ? id.value : "";
  }
  function openCards(root) {
    return Array.prototype.filter.call(root.querySelectorAll("details.card-fold[open]"), function (card) {
      return cardId(card) !== "";
    }).map(cardId);
  }
  // Unfolds whatever folded part holds `element` (a card, a group of settings), so it can
  // be seen and focused.
  function unfold(element) {
    for (var fold = element && element.closest("details"); fold; fold = fold.parentElement.closest("details")) {
      fold.open = true;
    }
  }
  function unfoldTarget() {
    var target = location.hash.length > 1 && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    unfold(target);
    target.scrollIntoView({ block: "center" });
    target.focus({ preventScroll: true });
  }
  window.addEventListener("hashchange", unfoldTarget);
  unfoldTarget();

  // A failed save's list links to each wrong field: going there also puts the cursor in it.
  document.addEventListener("click", function (event) {
    var link = event.target.closest(".alert a[href^='#']");
    var field = link && document.getElementById(link.getAttribute("href").slice(1));
    if (!field) return;
    unfold(field);
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
    showPicks(document);
  });
  // A rule's answer list offers only the answers of the question picked, and the typed value
  // is offered only for a question whose answers are not a known few.
  function showPicks(root) {
    root.querySelectorAll("select[data-picks-of]").forEach(function (pick) {
      var question = document.querySelector("select[name='" + pick.getAttribute("data-picks-of") + "']");
      var id = question ? question.value : "";
      var known = false;
      pick.querySelectorAll("optgroup").forEach(function (group) {
        var mine = group.getAttribute("data-question") === id;
        group.hidden = !mine;
        group.disabled = !mine;
        known = known || mine;
      });
      if (pick.selectedOptions[0] && pick.selectedOptions[0].parentNode.disabled) pick.value = "";
      pick.hidden = !known;
      var typed = pick.parentNode.querySelector("input[data-values-of='" + pick.getAttribute("data-picks-of") + "']");
      // No question picked: no rule, so nothing to compare with.
      if (typed) typed.hidden = known || id === "";
    });
  }
  showPicks(document);
  // Only answers of earlier pages can be recalled: a question on the first page offers none.
  function showRecalls() {
    document.querySelectorAll(".recall-picker").forEach(function (picker) {
      var index = Number(picker.id.replace(/^q(\d+)-recall$/, "$1"));
      var paged = false;
      for (var at = 1; at <= index; at++) {
        var box = document.getElementById("q" + at + "-page-break");
        if (box && box.checked) { paged = true; break; }
      }
      picker.hidden = !paged;
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.matches("input[id$='-page-break']")) showRecalls();
  });
  showRecalls();
  // Recall: a picked earlier question goes in at the caret (without the script, the button
  // adds it at the end on the server). "@" typed in a question's text opens the picker.
  var atTyped = null;
  document.addEventListener("click", function (event) {
    var pick = event.target.closest("button[data-recall]");
    if (!pick) return;
    var field = document.getElementById(pick.getAttribute("data-into"));
    if (!field) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    var token = "{{q:" + pick.getAttribute("data-recall") + "}}";
    var start = field.selectionStart == null ? field.value.length : field.selectionStart;
    var end = field.selectionEnd == null ? start : field.selectionEnd;
    if (atTyped && atTyped.field === field && field.value.charAt(atTyped.at) === "@") {
      start = atTyped.at;
      end = Math.max(end, atTyped.at + 1);
    }
    atTyped = null;
    field.value = field.value.slice(0, start) + token + field.value.slice(end);
    var caret = start + token.length;
    var picker = pick.closest("details");
    if (picker) picker.open = false;
    field.focus();
    field.setSelectionRange(caret, caret);
    changed();
  }, true);
  document.addEventListener("keyup", function (event) {
    if (event.key !== "@") return;
    var field = event.target;
    var picker = field.id && document.getElementById(field.id.replace(/-text$/, "-recall"));
    if (!picker || picker.hidden || !field.matches("form.designer input[id$='-text']")) return;
    atTyped = { field: field, at: Math.max(0, field.selectionStart - 1) };
    picker.open = true;
    var first = picker.querySelector("button[data-recall]");
    if (first) first.focus();
  });
  document.addEventListener("keydown", function (event) {
    // Escape closes the picker and goes back to the text, the "@" left as typed.
    if (event.key !== "Escape") return;
    var picker = event.target.closest(".recall-picker");
    if (!picker) return;
    picker.open = false;
    var field = document.getElementById(picker.id.replace(/-recall$/, "-text"));
    if (field) field.focus();
    atTyped = null;
  });

  // Drag and drop: a handle on each card; dropped on another card, the question takes its
  // place (the same move the server makes for "move-FROM-TO"). Move up and Move down stay
  // for keyboards and for pages without the script.
  function addHandles(root) {
    root.querySelectorAll(".question-block:not(.removed) fieldset.question-edit > legend, .question-block:not(.removed) .card-line").forEach(function (legend) {
      if (legend.querySelector(".drag-handle")) return;
      var handle = document.createElement("span");
      handle.className = "drag-handle";
      handle.setAttribute("aria-hidden", "true");
      handle.title = "Drag to move";
      handle.textContent = "\u2807\u2807";
      legend.insertBefore(handle, legend.firstChild);
    });
  }
  var dragged = null;
  // The handle on a folded card's line drags it; a click on it does not unfold the card.
  document.addEventListener("click", function (event) {
    if (event.target.closest(".card-summary .drag-handle")) event.preventDefault();
  });
  document.addEventListener("mousedown", function (event) {
    var handle = event.target.closest(".drag-handle");
    var block = handle && handle.closest(".question-block");
    if (block) block.draggable = true;
  });
  document.addEventListener("dragstart", function (event) {
    var block = event.target.closest && event.target.closest(".question-block[draggable=true]");
    if (!block) return;
    dragged = block;
    block.classList.add("dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", block.getAttribute("data-index"));
  });
  document.addEventListener("dragover", function (event) {
    var over = dragged && event.target.closest && event.target.closest(".question-block");
    if (!over || over === dragged) return;
    event.preventDefault();
    document.querySelectorAll(".drop-before").forEach(function (b) { b.classList.remove("drop-before"); });
    over.classList.add("drop-before");
  });
  document.addEventListener("dragend", function () {
    if (dragged) { dragged.classList.remove("dragging"); dragged.draggable = false; }
    document.querySelectorAll(".drop-before").forEach(function (b) { b.classList.remove("drop-before"); });
    dragged = null;
  });
  document.addEventListener("drop", function (event) {
    var over = dragged && event.target.closest && event.target.closest(".question-block");
    if (!over || over === dragged) return;
    event.preventDefault();
    var from = Number(dragged.getAttribute("data-index"));
    var target = Number(over.getAttribute("data-index"));
    // Dropped on a card, it takes the place just before it.
    var to = from < target ? target - 1 : target;
    if (to === from) return;
    var form = over.closest("form.designer");
    var move = document.createElement("button");
    move.type = "submit";
    move.name = "action";
    move.value = "move-" + from + "-" + to;
    move.hidden = true;
    move.setAttribute("formaction", form.getAttribute("action") + "#q" + to + "-text");
    form.appendChild(move);
    move.click();
  });
  // Enter in a question's text adds a short-text question below it, focused (the keyboard
  // way to write a survey question after question); without the script Enter saves.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.isComposing || event.shiftKey) return;
    var field = event.target;
    var match = field.id && /^q(\d+)-text$/.exec(field.id);
    if (!match || !field.closest("form.designer")) return;
    var add = document.querySelector("form.designer button[value='add-" + (Number(match[1]) + 1) + "-short_text']");
    if (!add) return;
    event.preventDefault();
    add.click();
  });
  // A question's new text shows at once in the pickers that name it.
  document.addEventListener("input", function (event) {
    var match = event.target.id && /^q(\d+)-text$/.exec(event.target.id);
    if (!match) return;
    var id = document.querySelector("input[name='q" + match[1] + ".id']");
    var number = document.querySelector("#q" + match[1] + "-legend .number");
    if (!id || !id.value || !number) return;
    var label = number.textContent.trim() + ". " + event.target.value.slice(0, 60);
    document.querySelectorAll("form.designer option[value='" + id.value + "'], form.designer button[data-recall='" + id.value + "']")
      .forEach(function (el) { el.textContent = label; });
  });
  // One observer for all that a form drawn anew needs again.
  new MutationObserver(function () { showPicks(document); showRecalls(); addHandles(document); })
    .observe(document.body, { childList: true, subtree: true });
  addHandles(document);
  showFieldsOfTypes(document);
})();
