// Care: the cards count down to the next feed and follow what the household logs, live; the
// undo buttons go once their two minutes are over; a new family takes the browser's zone.
(function () {
  "use strict";

  function words(ms) {
    var minutes = Math.floor(Math.abs(ms) / 60000);
    if (minutes < 1) return "less than a minute";
    if (minutes < 60) return minutes + " min";
    return Math.floor(minutes / 60) + " h" + (minutes % 60 ? " " + (minutes % 60) + " min" : "");
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll(".care-countdown[data-next]").forEach(function (span) {
      var left = Date.parse(span.getAttribute("data-next")) - now;
      if (isNaN(left)) return;
      var badge = span.parentNode.querySelector(".badge");
      var state = left > 0 ? "fed" : left > -3600000 ? "due" : "overdue";
      span.textContent = state === "fed" ? "Next feed in " + words(left) : state === "due" ? "Next feed due now" : "Overdue by " + words(left);
      if (badge) {
        badge.className = "badge state-" + state;
        badge.textContent = state === "fed" ? "Fed" : state === "due" ? "Due" : "Overdue";
      }
    });
    document.querySelectorAll("form[data-until]").forEach(function (form) {
      if (Date.parse(form.getAttribute("data-until")) <= now) form.remove();
    });
  }

  // Feeds the service worker kept without a connection (`sw.js`): sent on every page's load and
  // when the connection comes back; the Care tab says how many wait, and reloads once sent.
  function replay() {
    if (navigator.serviceWorker && navigator.serviceWorker.controller && navigator.onLine !== false) {
      navigator.serviceWorker.controller.postMessage("replay-feeds");
    }
  }

  function showWaiting() {
    if (!window.indexedDB || !document.querySelector(".care-card")) return;
    var open = indexedDB.open("pawpack-offline", 1);
    open.onupgradeneeded = function () { open.result.createObjectStore("feeds", { autoIncrement: true }); };
    open.onsuccess = function () {
      var db = open.result;
      var count = db.transaction("feeds").objectStore("feeds").count();
      count.onsuccess = function () {
        db.close();
        var main = document.querySelector("main");
        if (!count.result || !main || document.getElementById("feeds-waiting")) return;
        var note = document.createElement("p");
        note.className = "notice";
        note.id = "feeds-waiting";
        note.setAttribute("role", "status");
        note.textContent = count.result === 1
          ? "1 feed saved on this device is waiting for a connection."
          : count.result + " feeds saved on this device are waiting for a connection.";
        main.insertBefore(note, main.firstChild);
      };
    };
  }

  function offlineFeeds() {
    showWaiting();
    replay();
    window.addEventListener("online", replay);
    if (!navigator.serviceWorker) return;
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "feeds-sent" && document.querySelector(".care-card, #feeds-waiting")) {
        window.location.reload();
      }
    });
  }

  function init() {
    offlineFeeds();
    if (!document.querySelector(".care-card, #create-family")) return;
    tick();
    setInterval(tick, 30000);
    // What another member logged (or this member, in another tab) replaces the pet's card in
    // place, drawn by the server as on a load: the page itself stays, scroll and forms untouched.
    if (window.Pawpack && Pawpack.on) {
      ["feed", "feed_deleted", "care_changed"].forEach(function (type) {
        Pawpack.on(type, function (data) {
          if (data && document.getElementById("care-" + data.petId)) later(data.petId);
        });
      });
    }
  }

  // A batch of feeds is one redraw: the card is fetched once its events stop for a moment.
  var waiting = {};
  function later(pet) {
    clearTimeout(waiting[pet]);
    waiting[pet] = setTimeout(function () { delete waiting[pet]; refresh(pet); }, 600);
  }

  function refresh(pet) {
    if (Pawpack.leaving) return;
    fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("care-" + pet);
        var shown = document.getElementById("care-" + pet);
        if (fresh && shown && !Pawpack.leaving) {
          shown.replaceWith(document.importNode(fresh, true));
          if (Pawpack.localize) Pawpack.localize(document.getElementById("care-" + pet));
          tick();
        }
      })
      .catch(function () { /* the next event or load draws it */ });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
