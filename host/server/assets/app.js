// Progressive enhancement: every page works without this file.
// - A part of a page marked data-live is fetched again when the server says
//   a version finished or the leaderboard was fitted again (server-sent
//   events), so results appear without a reload.
// - The upload box takes a dropped file.
(function () {
  "use strict";
  var live = document.querySelectorAll("[data-live]");
  function refresh(kind) {
    live.forEach(function (part) {
      // A part says which event changes it: "finished" (a version was graded) unless data-on says "ladder".
      if ((part.getAttribute("data-on") || "finished") !== kind) { return; }
      fetch(part.getAttribute("data-live"), { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null) { return; }
          var doc = new DOMParser().parseFromString(html, "text/html");
          part.replaceChildren.apply(part, Array.prototype.slice.call(doc.body.childNodes));
        });
    });
  }
  if (live.length && window.EventSource) {
    var events = new EventSource("/events");
    events.addEventListener("finished", function () { refresh("finished"); });
    events.addEventListener("ladder", function () { refresh("ladder"); });
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
})();
