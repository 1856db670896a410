// The camera page: the latest annotated frame, and four clicks to set the board's corners.
"use strict";

const img = document.getElementById("frame");
const result = document.getElementById("action-result");
let corners = null;

function reload() { img.src = `/api/frame.jpg?t=${Date.now()}`; }
img.addEventListener("error", () => { result.textContent = "no camera frame yet"; });
setInterval(() => { if (!corners) reload(); }, 1000);
reload();

document.getElementById("set-corners").addEventListener("click", () => {
  corners = [];
  result.textContent = "click the top-left corner of the board";
});

const NAMES = ["top-left", "top-right", "bottom-right", "bottom-left"];
img.addEventListener("click", async (e) => {
  if (!corners) return;
  const box = img.getBoundingClientRect();
  corners.push([(e.clientX - box.left) * img.naturalWidth / box.width,
                (e.clientY - box.top) * img.naturalHeight / box.height]);
  if (corners.length < 4) { result.textContent = `now the ${NAMES[corners.length]} corner`; return; }
  const response = await fetch("/api/corners", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Table-Pin": document.getElementById("pin").value },
    body: JSON.stringify({ corners }),
  });
  const body = await response.json().catch(() => ({}));
  result.textContent = response.ok ? "corners set" : (body.error || "refused");
  corners = null;
  reload();
});
