// Source viewer (Markdown, text, audio): scroll the cited place into view; audio starts
// at the cited second and the transcript's time buttons seek.
"use strict";
(function () {
  const cited = document.getElementById("cited");
  if (cited) {
    // scroll this document only: scrollIntoView would also scroll the ask page around
    // the frame this viewer may be shown in
    const top = cited.getBoundingClientRect().top + window.scrollY;
    window.scrollTo(0, Math.max(0, top - window.innerHeight / 3));
  }
  const player = document.getElementById("player");
  if (!player) return;
  const start = parseFloat(player.dataset.start || "0") || 0;
  const seek = (t) => {
    try { player.currentTime = t; } catch (e) { /* not seekable yet */ }
  };
  if (player.readyState >= 1) seek(start);
  else player.addEventListener("loadedmetadata", () => seek(start), { once: true });
  for (const b of document.querySelectorAll("button.seek")) {
    b.addEventListener("click", () => { seek(parseFloat(b.dataset.t) || 0); player.play(); });
  }
  const items = Array.from(document.querySelectorAll("ol.transcript li"));
  player.addEventListener("timeupdate", () => {
    let current = null;
    for (const li of items) {
      const t = parseFloat(li.querySelector("button.seek").dataset.t);
      if (t <= player.currentTime + 0.05) current = li;
    }
    for (const li of items) li.classList.toggle("playing", li === current);
  });
})();
