// Same-origin helper for the check page (the pages work without it):
// opening one citation panel closes the others; Escape closes the open one.
"use strict";
document.addEventListener("toggle", function (event) {
  var opened = event.target;
  if (!(opened instanceof HTMLDetailsElement) || !opened.classList.contains("badge") || !opened.open) {
    return;
  }
  document.querySelectorAll("details.badge[open]").forEach(function (other) {
    if (other !== opened) { other.open = false; }
  });
}, true);
document.addEventListener("keydown", function (event) {
  if (event.key !== "Escape") { return; }
  document.querySelectorAll("details.badge[open]").forEach(function (open) {
    open.open = false;
    open.querySelector("summary").focus();
  });
});
