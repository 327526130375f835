// Display logic on a survey page, as the respondent answers: a question marked with
// data-show-if is shown only while its condition holds. Without this script every such
// question stays visible with a hint; the server decides in either case.
(function () {
  "use strict";
  var form = document.querySelector("form.survey");
  if (!form) return;
  var conditional = Array.prototype.slice.call(form.querySelectorAll("[data-show-if]"));

  // Every non-blank value posted for a question, as the server reads them.
  function answers(id) {
    var out = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      // A matrix's rows are q-ID.N (and "Other" text q-ID.other): any of them answers it.
      var named = el.name === "q-" + id || el.name.indexOf("q-" + id + ".") === 0;
      if (!named || el.disabled) return;
      if ((el.type === "radio" || el.type === "checkbox") && !el.checked) return;
      var value = (el.value || "").trim();
      if (value !== "") out.push(value);
    });
    return out;
  }

  function number(text) {
    var n = Number(text);
    return text !== "" && isFinite(n) ? n : null;
  }

  function equals(values, wanted) {
    return values.some(function (v) {
      var a = number(v), b = number(wanted);
      return v === wanted || (a !== null && b !== null && a === b);
    });
  }

  function holds(c) {
    if (c.all) return c.all.every(holds);
    if (c.any) return c.any.some(holds);
    var values = answers(c.question);
    if ("answered" in c) return c.answered === (values.length > 0);
    // A ranking "is" its first choice, as the server reads it.
    if (form.querySelector('.places select[name="q-' + c.question + '"]')) values = values.slice(0, 1);
    if (values.length === 0) return false;
    if ("equals" in c) return equals(values, c.equals);
    if ("not_equals" in c) return !equals(values, c.not_equals);
    if ("any_of" in c) return c.any_of.some(function (w) { return equals(values, w); });
    var n = number(values[0]);
    // Dates (YYYY-MM-DD) compare in order as text, as the server compares them.
    if (typeof c.greater_than === "string") return values[0] > c.greater_than;
    if (typeof c.less_than === "string") return values[0] < c.less_than;
    if ("greater_than" in c) return n !== null && n > c.greater_than;
    if ("less_than" in c) return n !== null && n < c.less_than;
    if ("contains" in c) return values[0].toLowerCase().indexOf(c.contains.toLowerCase()) >= 0;
    return true;
  }

  function update() {
    conditional.forEach(function (block) {
      var show;
      try { show = holds(JSON.parse(block.getAttribute("data-show-if"))); } catch (e) { show = true; }
      block.hidden = !show;
      // A hidden question's inputs are neither checked by the browser nor sent.
      Array.prototype.forEach.call(block.querySelectorAll("input, textarea, select"), function (el) {
        el.disabled = !show;
      });
      var hint = block.querySelector(".condition-hint");
      if (hint) hint.hidden = true;
    });
  }

  // "Other, please specify": the text box shows only while "Other" is picked (without this
  // script it always shows, and writing in it counts as picking "Other").
  function others() {
    Array.prototype.forEach.call(form.querySelectorAll("input.other-text"), function (text) {
      var choice = form.querySelector('input[name="' + text.name.slice(0, -6) + '"][value="Other"]');
      if (!choice) return;
      var was = text.hidden;
      text.hidden = !choice.checked;
      if (was && choice.checked && document.activeElement === choice) text.focus();
    });
  }

  // Writing beside "Other" picks "Other", as the server reads it.
  form.addEventListener("input", function (event) {
    var name = event.target.name || "";
    if (/\.other$/.test(name) && event.target.value.trim() !== "") {
      var choice = form.querySelector('input[name="' + name.slice(0, -6) + '"][value="Other"]');
      if (choice) choice.checked = true;
    }
  });
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  form.addEventListener("change", others);
  update();
  others();
})();
