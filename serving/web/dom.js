// What the student page (app.js) and the preference study's page (study.js) both make their
// elements with; each page loads this script before its own. Everything the server sends goes in
// as text, never as HTML.
"use strict";

window.dom = Object.freeze({
  el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  },
});
