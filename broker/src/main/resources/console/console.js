// The Felix web console: polls the admin API once a second and draws what it answers. It keeps no state of its
// own beyond the last answers, and every action is one admin API call behind a confirmation.

const REFRESH_MS = 1000;

const $ = (selector) => document.querySelector(selector);

/** Creates an element with attributes (data-* included) and children (strings become text). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "style") node.setAttribute("style", value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// With admin authentication on, the token is asked for once and kept for this tab only (sessionStorage).
const TOKEN_KEY = "felix-admin-token";

/** Raised when the admin API answers 401: polling stops until a token is given. */
class NeedsToken extends Error {}

/** One admin API call; resolves to {ok, status, body} and never throws for an HTTP error but 401. */
async function api(method, path, body) {
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { error: text };
  }
  if (response.status === 401) throw new NeedsToken(parsed && parsed.error || "the admin API needs a token");
  return { ok: response.ok, status: response.status, body: parsed };
}

async function getJson(path) {
  const answer = await api("GET", path);
  if (!answer.ok) throw new Error(`${path}: ${answer.status} ${answer.body && answer.body.error || ""}`);
  return answer.body;
}

/**
 * What placement aims for: each live broker (not draining, not down) leads between floor and ceil of the
 * shards over the live brokers; a draining or down broker should lead none.
 */
export function band(shards, liveBrokers) {
  if (liveBrokers <= 0) return { floor: 0, ceil: 0 };
  return { floor: Math.floor(shards / liveBrokers), ceil: Math.ceil(shards / liveBrokers) };
}

function withinBand(count, broker, range) {
  return broker.state === "live" ? count >= range.floor && count <= range.ceil : count === 0;
}

/**
 * @param streams the rows to draw (the brokers' internal streams left out)
 * @param allShards the shards of every stream, internal ones included: the totals row counts every leader, as
 *     placement does when it evens out the cluster's totals
 */
function renderLeaders(brokers, status, streams, allShards) {
  const live = brokers.filter((b) => b.state === "live").length;
  const rows = streams.map((s) => ({
    name: s.name,
    kind: s.kind,
    shards: s.shards,
    counts: status.streams[s.name] || {},
    underReplicated: s.under_replicated_shards.length,
  }));
  rows.push({ name: "total", shards: allShards, counts: status.total || {}, underReplicated: 0, total: true });

  const container = $("#leaders");
  container.replaceChildren();
  if (streams.length === 0) {
    container.append(el("p", { class: "empty" }, "No streams or caches yet."));
  }
  for (const row of rows) {
    const range = band(row.shards, live);
    const scale = Math.max(range.ceil, ...brokers.map((b) => row.counts[b.id] || 0), 1);
    const outside = brokers.some((b) => !withinBand(row.counts[b.id] || 0, b, range));
    const cells = brokers.map((b) => {
      const count = row.counts[b.id] || 0;
      const bandStyle = b.state === "live"
        ? `left:${(range.floor / scale) * 100}%;width:${((range.ceil - range.floor) / scale) * 100}%`
        : "display:none";
      return el("div", { class: "cell", "data-broker": b.id, "data-leaders": count },
        el("span", { class: "broker-label" }, `broker ${b.id}`),
        el("div", { class: "track" },
          el("div", { class: "band", style: bandStyle }),
          el("div", { class: withinBand(count, b, range) ? "bar" : "bar off", style: `width:${(count / scale) * 100}%` })),
        el("span", { class: "count" }, count));
    });
    container.append(el("div", {
      class: `stream-row${row.total ? " total" : ""}${outside ? " outside" : ""}`,
      "data-stream": row.total ? null : row.name,
      "data-kind": row.kind || null,
      "data-total": row.total || null,
      "data-outside": String(outside),
    },
    el("div", { class: "stream-name" }, row.name,
      row.kind === "cache" ? el("span", { class: "kind" }, "cache") : null,
      el("small", {}, ` ${row.shards} shards, band ${range.floor}-${range.ceil}`),
      outside ? el("span", { class: "flag" }, "outside the band") : null,
      row.underReplicated > 0 ? el("span", { class: "flag warn" }, `${row.underReplicated} under-replicated`) : null),
    el("div", { class: "cells" }, cells)));
  }
}

function renderBrokers(brokers) {
  const body = $("#brokers tbody");
  body.replaceChildren(...brokers.map((b) => el("tr", { "data-broker": b.id },
    el("td", {}, b.id),
    el("td", {}, b.zone ?? "-"),
    el("td", { class: `state ${b.state}`, "data-state": b.state }, b.state),
    el("td", {}, b.leaders),
    el("td", {}, b.replicas),
    el("td", {}, b.under_replicated_shards),
    el("td", {}, b.state === "draining"
      ? el("button", { type: "button", class: "undrain", onclick: () => confirmThen(
        `Stop draining broker ${b.id}? It takes shards again and rebalancing hands it leaders back.`,
        () => api("DELETE", `/v1/brokers/${b.id}/drain`)) }, "Undrain")
      : el("button", { type: "button", class: "drain danger", disabled: b.state === "down", onclick: () => confirmThen(
        `Drain broker ${b.id}? Every shard it leads or hosts is moved off it.`,
        () => api("POST", `/v1/brokers/${b.id}/drain`)) }, "Drain")))));
}

function renderPlacement(placement) {
  const pass = placement.last_pass;
  const facts = [
    ["strategy", placement.strategy],
    ["paused", placement.paused ? "yes" : "no"],
    ["moves in flight", placement.moves_in_flight],
    ["max concurrent moves", placement.max_concurrent_moves],
    ["last pass", pass.at_ms > 0 ? `${new Date(pass.at_ms).toLocaleTimeString()} (${pass.trigger})` : "none yet"],
    ["it planned", pass.planned.length ? pass.planned.join("; ") : "nothing"],
  ];
  if (pass.leaderless && pass.leaderless.length) facts.push(["leaderless", pass.leaderless.join(", ")]);
  $("#placement").replaceChildren(...facts.flatMap(([key, value]) =>
    [el("dt", {}, key), el("dd", { "data-key": key }, value)]));
  const toggle = $("#toggle-pause");
  toggle.textContent = placement.paused ? "Resume placement" : "Pause placement";
  toggle.dataset.paused = placement.paused;
}

function renderMoves(moves) {
  const row = (m, inFlight) => el("tr", { class: inFlight ? "in-flight" : "", "data-move": `${m.stream}/${m.shard}`,
    "data-from": m.from, "data-to": m.to, "data-state": m.state },
    el("td", {}, `${m.stream}/${m.shard}`),
    el("td", {}, m.from),
    el("td", {}, m.to),
    el("td", {}, m.staged ? "copy" : "leadership"),
    el("td", {}, m.state),
    el("td", {}, `${(m.duration_ms / 1000).toFixed(1)} s`),
    el("td", {}, m.reason + (m.detail ? ` (${m.detail})` : "")));
  const rows = [...moves.in_flight.map((m) => row(m, true)), ...moves.recent.map((m) => row(m, false))];
  $("#moves tbody").replaceChildren(...(rows.length ? rows
    : [el("tr", {}, el("td", { colspan: 7, class: "empty" }, "No moves yet."))]));
}

/** Each group's detail (members, committed offsets, lag per shard); a group gone in between is left out. */
async function loadGroups() {
  const list = await getJson("/v1/groups");
  const details = await Promise.all(list.map((g) => api("GET", `/v1/groups/${encodeURIComponent(g.group)}`)));
  return details.filter((d) => d.ok).map((d) => d.body);
}

function renderGroups(groups) {
  const shardLags = (g) => g.shards.map((s) => `${s.shard}: ${s.lag ?? "?"}`).join(", ");
  $("#groups tbody").replaceChildren(...(groups.length ? groups.map((g) => el("tr", { "data-group": g.group },
    el("td", {}, g.group),
    el("td", {}, g.stream || "-"),
    el("td", {}, g.coordinator),
    el("td", { class: "members" }, g.members.length),
    el("td", {}, g.generation),
    el("td", { class: "lag", "data-lag": g.lag }, g.lag),
    el("td", { class: "shard-lags" }, shardLags(g))))
    : [el("tr", {}, el("td", { colspan: 7, class: "empty" }, "No consumer groups."))]));
}

/** Refills a select's options, keeping the chosen value when it is still offered. */
function fillChoices(selector, values) {
  for (const select of document.querySelectorAll(selector)) {
    const chosen = select.value;
    select.replaceChildren(...values.map((v) => el("option", { value: v }, v)));
    if (values.map(String).includes(chosen)) select.value = chosen;
  }
}

function flash(text, isError) {
  const node = $("#flash");
  node.textContent = text;
  node.className = isError ? "flash error" : "flash";
  node.hidden = false;
}

/** Shows the sign-in form (the admin API answered 401) and stops polling until a token is given. */
function askForToken(reason) {
  clearTimeout(timer);
  $("#sign-in-reason").textContent = reason;
  $("#sign-in").hidden = false;
  const connection = $("#connection");
  connection.textContent = "needs an admin token";
  connection.dataset.state = "error";
}

/** Asks for confirmation in a dialog; runs the call only on Confirm, then shows what the API answered. */
function confirmThen(text, call) {
  const dialog = $("#confirm");
  $("#confirm-text").textContent = text;
  dialog.returnValue = "";
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "ok") return;
    let answer;
    try {
      answer = await call();
    } catch (error) {
      if (error instanceof NeedsToken) askForToken(error.message);
      else flash(`cannot reach the admin API: ${error.message}`, true);
      return;
    }
    const body = answer.body || {};
    flash(answer.ok ? body.message || "done" : `${answer.status}: ${body.error || "failed"}`, !answer.ok);
    refresh();
  }, { once: true });
  dialog.showModal();
}

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function wireActions() {
  $("#sign-in").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, formValues(event.currentTarget).token.trim());
    event.currentTarget.reset();
    $("#sign-in").hidden = true;
    refresh();
  });
  $("#toggle-pause").addEventListener("click", (event) => {
    const paused = event.currentTarget.dataset.paused === "true";
    confirmThen(paused ? "Resume placement? Moves may start again." : "Pause placement? No new move starts.",
      () => api("POST", paused ? "/v1/placement/resume" : "/v1/placement/pause"));
  });
  $("#create-stream").addEventListener("submit", (event) => {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const body = { name: v.name, shards: Number(v.shards), replication_factor: Number(v.replication_factor) };
    confirmThen(`Create stream '${body.name}' with ${body.shards} shards and replication factor ${body.replication_factor}?`,
      () => api("POST", "/v1/streams", body));
  });
  $("#start-move").addEventListener("submit", (event) => {
    event.preventDefault();
    const v = formValues(event.currentTarget);
    const body = { stream: v.stream, shard: Number(v.shard), to: Number(v.to) };
    confirmThen(`Move the leadership of ${body.stream}/${body.shard} to broker ${body.to}?`,
      () => api("POST", "/v1/shard-moves", body));
  });
  $("#delete-stream").addEventListener("submit", (event) => {
    event.preventDefault();
    const { stream } = formValues(event.currentTarget);
    confirmThen(`Delete stream '${stream}' and every record in it?`,
      () => api("DELETE", `/v1/streams/${encodeURIComponent(stream)}`));
  });
}

let timer = null;
const shown = new Map();

function whenChanged(section, data, render) {
  const key = JSON.stringify(data);
  if (shown.get(section) !== key) {
    render();
    shown.set(section, key);
  }
}

async function refresh() {
  clearTimeout(timer);
  const connection = $("#connection");
  try {
    const [brokers, listed, status, placement, moves, groups] = await Promise.all([
      getJson("/v1/brokers"), getJson("/v1/streams"), getJson("/v1/replication-status?format=json"),
      getJson("/v1/placement"), getJson("/v1/shard-moves"), loadGroups()]);
    const streams = listed.filter((s) => !s.internal); // the brokers' own streams (group offsets) are not shown
    // Redrawn only when what they show changed: a button redrawn under the pointer would lose its click.
    const allShards = listed.reduce((sum, s) => sum + s.shards, 0);
    whenChanged("leaders", [brokers, status, streams], () => renderLeaders(brokers, status, streams, allShards));
    whenChanged("brokers", brokers, () => renderBrokers(brokers));
    whenChanged("placement", placement, () => renderPlacement(placement));
    renderMoves(moves); // no buttons there, and the durations of moves in flight change every second
    whenChanged("groups", groups, () => renderGroups(groups));
    whenChanged("choices", [streams.map((s) => [s.name, s.kind]), brokers.map((b) => b.id)], () => {
      fillChoices(".shard-owner-choice", streams.map((s) => s.name));
      fillChoices(".stream-choice", streams.filter((s) => s.kind === "stream").map((s) => s.name));
      fillChoices(".broker-choice", brokers.map((b) => b.id));
    });
    connection.textContent = `live, updated ${new Date().toLocaleTimeString()}`;
    connection.dataset.state = "live";
  } catch (error) {
    if (error instanceof NeedsToken) {
      askForToken(error.message);
      return;
    }
    connection.textContent = `cannot reach the admin API: ${error.message}`;
    connection.dataset.state = "error";
  }
  timer = setTimeout(refresh, REFRESH_MS);
}

wireActions();
refresh();
