// Progressive enhancement: every page works without this file.
// - A part of a page marked data-live is fetched again when the server says
//   a version finished, or replaced by the table the server sends when the
//   leaderboard was fitted again (server-sent events), so results appear
//   without a reload.
// - The upload box takes a dropped file.
// - An LTI launch shown in a window of its own (not in the LMS's frame)
//   goes on into the course by itself; in a frame it waits for a click,
//   which opens the course in a new window (its cookie is not a frame's).
(function () {
  "use strict";
  var live = document.querySelectorAll("[data-live]");
  function show(part, html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    part.replaceChildren.apply(part, Array.prototype.slice.call(doc.body.childNodes));
  }
  // sent: the part's new content when the event carries it (the
  // leaderboard does, so a class of open pages asks the server nothing).
  function refresh(kind, sent) {
    live.forEach(function (part) {
      // A part says which event changes it: "finished" (a version was graded) unless data-on says "ladder".
      if ((part.getAttribute("data-on") || "finished") !== kind) { return; }
      if (sent) { show(part, sent); return; }
      fetch(part.getAttribute("data-live"), { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) { if (html !== null) { show(part, html); } });
    });
  }
  if (live.length && window.EventSource) {
    var events = new EventSource("/events");
    events.addEventListener("finished", function () { refresh("finished"); });
    // A grading moved on: the parts a finished version changes show its progress too.
    events.addEventListener("progress", function () { refresh("finished"); });
    events.addEventListener("ladder", function (e) {
      refresh("ladder", e.data && e.data !== "fitted" ? e.data : null);
    });
  }
  var drop = document.getElementById("drop");
  if (drop) {
    var input = drop.querySelector("input[type=file]");
    ["dragenter", "dragover"].forEach(function (t) {
      drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (t) {
      drop.addEventListener(t, function () { drop.classList.remove("over"); });
    });
    drop.addEventListener("drop", function (e) {
      e.preventDefault();
      if (e.dataTransfer && e.dataTransfer.files.length) {
        input.files = e.dataTransfer.files;
        document.getElementById("upload").submit();
      }
    });
  }
  // A Dynamic Registration done: tell the LMS's page to close its frame.
  if (document.getElementById("lti-registered")) {
    (window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
  }
  var enter = document.getElementById("lti-enter");
  if (enter && window.top === window.self) { location.replace(enter.href); }
})();
