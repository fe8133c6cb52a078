"use strict";
const url = location.origin + "/status.json";
function cells(row, values) {
  for (const v of values) { const td = document.createElement("td"); td.textContent = v; row.appendChild(td); }
}
function fill(id, items, values) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren();
  items.forEach((item, i) => { const tr = document.createElement("tr"); cells(tr, values(item, i)); body.appendChild(tr); });
}
function s(x) { return x.toFixed(1); }
function draw(snap) {
  document.getElementById("run").textContent = runLine(snap.run);
  fill("nodes", snap.nodes, n => [n.name, n.cluster_node === null ? "not used" : String(n.cluster_node), n.health,
    s(n.last_heard_s) + " s ago", n.slots.join(", "),
    n.jobs.map(j => "job " + j.job + " attempt " + j.attempt + " on " + j.slots.join(",") + " (" + j.phase + ")").join("; ")]);
  fill("queue", snap.queue, (q, i) => [String(i + 1), String(q.job), String(q.gpus),
    q.running ? "running" : "waiting", Math.round(q.done * 100) + " %"]);
  fill("decisions", snap.decisions, d => [s(d.at_s), d.event, String(d.job), String(d.attempt), d.node, d.slots, d.reason]);
  document.getElementById("refreshed").textContent = "Refreshed at " + new Date().toLocaleTimeString() + ".";
}
function runLine(run) {
  if (run === null) return "No run has begun.";
  return "Run " + run.name + ", round " + run.round + " (" + s(run.round_time_s) + " s), " + s(run.clock_s) + " s since it began" + (run.ended ? "; ended." : ".");
}
async function poll() {
  try {
    const answer = await fetch(url, {cache: "no-store"});
    if (answer.ok) draw(await answer.json());
    else document.getElementById("refreshed").textContent = "Not refreshed: the scheduler answered " + answer.status + ".";
  } catch (e) {
    document.getElementById("refreshed").textContent = "Not refreshed: the scheduler cannot be reached.";
  }
}
setInterval(poll, REFRESH);
