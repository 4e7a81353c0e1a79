// PDF viewer: pdf.js (vendored, kb/serve/static/vendor/pdfjs) renders the cited page.
import * as pdfjs from "/static/vendor/pdfjs/pdf.min.mjs";

const box = document.getElementById("pdf");
const canvas = document.getElementById("pdf-canvas");
const info = document.getElementById("pageinfo");
pdfjs.GlobalWorkerOptions.workerSrc = box.dataset.worker;

let doc = null;
let current = Math.max(1, parseInt(box.dataset.page, 10) || 1);
let rendering = Promise.resolve();

async function render(n) {
  const page = await doc.getPage(n);
  const width = Math.min(box.clientWidth - 24, 1100);
  const base = page.getViewport({ scale: 1 });
  const scale = (width / base.width) * (window.devicePixelRatio || 1);
  const viewport = page.getViewport({ scale });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = Math.floor(viewport.width / (window.devicePixelRatio || 1)) + "px";
  await page.render({ canvasContext: canvas.getContext("2d"), viewport }).promise;
  current = n;
  info.textContent = `page ${n} of ${doc.numPages}`;
  box.dataset.rendered = String(n);
}

function go(n) {
  if (!doc || n < 1 || n > doc.numPages) return;
  rendering = rendering.then(() => render(n));
}

document.getElementById("prev").addEventListener("click", () => go(current - 1));
document.getElementById("next").addEventListener("click", () => go(current + 1));

pdfjs.getDocument({ url: box.dataset.src, isEvalSupported: false, useSystemFonts: true })
  .promise.then((d) => {
    doc = d;
    go(Math.min(current, d.numPages));
  })
  .catch((e) => {
    info.textContent = "could not open the PDF: " + e.message;
  });
